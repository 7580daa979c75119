/** producing: what the worker hands produce.ts for one render — a print on the pool that is made once more when a crash
 * lost it, the workspace's assets and the pool's limits for finishing, and the stores operations and page images use. */
import type { Logger } from "pino";
import type { Clock } from "../lib/clock";
import type { FileStore } from "../store/files";
import type { Store } from "../store/store";
import type { RenderSpans } from "../tracing/tracing";
import type { FinishDeps } from "./finish";
import type { PrintJob } from "./job";
import { PoolCrashError, type RenderOutput, type RenderPool } from "./pool";
import type { ProduceDeps, SealPdf } from "./produce";
import { pageAssets, workspaceAsset } from "./workspace-assets";

export interface ProducingOptions {
  store: Store;
  clock: Clock;
  files: FileStore;
  pool: RenderPool;
  log: Logger;
  sealPdf?: SealPdf;
}

/** producing answers produce.ts's dependencies, its steps timed as the render's spans; `printed` is told when Chromium's
 * PDF is ready, before finishing (the timeline's "printed"). `ahead` is the print already begun for the job, if any. */
export function producing(options: ProducingOptions, phase: RenderSpans["phase"], printed: () => void, ahead?: Promise<RenderOutput>): ProduceDeps {
  const { store, clock, files, pool, sealPdf } = options;
  return {
    phase,
    print: async (workspaceId, job, signal) => {
      const out = await (ahead ?? print(options, workspaceId, job, signal));
      printed();
      return out;
    },
    finishing: (workspaceId) => finishing(options, workspaceId),
    sealPdf,
    operation: { read: (area, sha256) => files.read(area, sha256), maxPages: pool.maxPages, maxOutputBytes: pool.maxOutputBytes },
    images: { store, clock, files },
  };
}

/** print prints on the pool, and once more when a crash lost the render (the pool has replaced what crashed). */
export async function print({ store, files, pool, log }: ProducingOptions, workspaceId: string, job: PrintJob, signal: AbortSignal): Promise<RenderOutput> {
  const renderJob = { ...job, assets: pageAssets(workspaceAsset(store, files, workspaceId)) };
  try {
    return await pool.render(renderJob, signal);
  } catch (e) {
    if (!(e instanceof PoolCrashError) || signal.aborted) throw e;
    log.warn({ kind: e.kind }, "render lost to a crash; printing it once more");
    return await pool.render(renderJob, signal);
  }
}

/** finishing is what finish.ts needs: the workspace's assets (the attached and embedded PDFs) and the pool's limits. */
function finishing({ store, files, pool }: ProducingOptions, workspaceId: string): FinishDeps {
  return { asset: workspaceAsset(store, files, workspaceId), maxPages: pool.maxPages, maxOutputBytes: pool.maxOutputBytes };
}
