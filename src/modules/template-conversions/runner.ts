/** template-conversions/runner: converts queued conversions one at a time, in this process but off the request path
 * and apart from the render pool (a conversion needs no Chromium). Rows in the store are the queue, so a restart
 * loses none (service.ts recoverConversions). */
import type { Logger } from "pino";
import { Backoff } from "../../lib/backoff";
import { SerialRunner } from "../../lib/serial-runner";
import type { Clock } from "../../lib/clock";
import { uploadedAsset } from "../../store/assets";
import type { FileStore } from "../../store/files";
import { storageFailure } from "../../store/space";
import type { Store } from "../../store/store";
import { convertPdf } from "./convert";
import { ConversionFailure } from "./extract";
import type { NamerOptions } from "./namer";
import { claimNextConversion, failConversion, recoverConversions, succeedConversion, type ConversionRow } from "./service";

export interface RunnerOptions {
  store: Store;
  clock: Clock;
  log: Logger;
  files: FileStore;
  namer: NamerOptions;
}

const MAX_NAME = 200;

// "Invoice March.pdf" → "Invoice March"; the template name keeps within its 200 characters.
function templateName(filename: string): string {
  return (filename.replace(/\.pdf$/i, "").trim() || "Converted PDF").slice(0, MAX_NAME);
}

/** ConversionRunner works through the queued conversions; `kick` wakes it when one is created. */
export class ConversionRunner {
  /** Drains the queue, one drain at a time; a kick during a drain (a conversion created after its last claim found
   * none) makes it drain once more after. */
  private readonly drains = new SerialRunner({
    job: () => this.drainSoon(),
    // Only the store can fail here (a conversion's own failure is recorded in convert): after a back-off the drain
    // starts again, queueing what the failure left processing (a full disk: issue 26).
    failed: (error) => {
      this.recovered = false;
      this.faults.failed(error);
      clearTimeout(this.retry);
      this.retry = setTimeout(() => this.kick(), this.faults.waitMs());
    },
    // After a failure the retry above drains again, once the back-off allows.
    rerun: () => !this.stopped && this.faults.ready(),
  });
  private stopped = false;
  /** Whether what a stop or crash left processing was queued again; false again after the store failed mid-drain. */
  private recovered = false;
  private readonly faults: Backoff;
  private retry?: ReturnType<typeof setTimeout>;

  constructor(private readonly options: RunnerOptions) {
    this.faults = new Backoff(options.log, "converting templates");
  }

  /** start queues again what a stop or crash interrupted, then converts whatever waits. */
  start(): void {
    this.stopped = false;
    this.kick();
  }

  /** kick starts a drain, or, while one runs, asks for another after it; it returns at once. */
  kick(): void {
    if (!this.stopped) void this.drains.run();
  }

  /** idle resolves when nothing is being converted (tests, stop). */
  idle(): Promise<void> {
    return this.drains.idle();
  }

  /** stop lets the conversion in hand finish and takes no other; what is still queued waits for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.idle();
  }

  private async drainSoon(): Promise<void> {
    // A macrotask: the request that kicked answers before any conversion work starts.
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    await this.drain();
    this.faults.succeeded();
  }

  private async drain(): Promise<void> {
    const { store, clock, log } = this.options;
    if (!this.recovered) {
      const recovered = await recoverConversions(store, clock);
      if (recovered.requeued || recovered.failed) log.info(recovered, "template conversions left processing (by a restart or a store failure) queued again");
      this.recovered = true;
    }
    while (!this.stopped) {
      const r = await claimNextConversion(store, clock);
      if (!r) return;
      await this.convert(r);
    }
  }

  private async convert(r: ConversionRow): Promise<void> {
    const { store, clock, log, files, namer } = this.options;
    const asset = await uploadedAsset(store, r.workspace_id, r.asset_id);
    if (!asset) return failConversion(store, clock, r, `Asset ${r.asset_id} was deleted before it could be converted; upload the PDF again.`);
    try {
      const bytes = await files.read("assets", asset.sha256);
      if (!bytes) return failConversion(store, clock, r, `The bytes of asset ${r.asset_id} are missing from the file store; upload the PDF again.`);
      const built = await convertPdf(bytes, namer, log);
      await succeedConversion(store, clock, r, templateName(asset.filename), built.draft, built.sampleData);
      log.info({ conversionId: r.id, workspaceId: r.workspace_id }, "template conversion succeeded");
    } catch (error) {
      // DATA_DIR full or read-only: the conversion is not at fault; the drain stops and it is queued again (issue 26).
      if (storageFailure(error)) throw error;
      if (!(error instanceof ConversionFailure)) log.error({ err: error, conversionId: r.id }, "template conversion failed unexpectedly");
      const message = error instanceof ConversionFailure ? error.message : "The conversion failed on our side; start a new conversion, and report it if it fails again.";
      await failConversion(store, clock, r, message);
    }
  }
}
