/**
 * kill -9: what renderd acknowledged survives the process dying at any moment (DESIGN.md 1: synchronous=FULL; the worker
 * commits the ends of renders that finish together in one transaction, render/worker.ts). Clients keep creating
 * renders — half answered 202 at once, half with ?wait — while the server is killed with SIGKILL at three different
 * moments and restarted on the same DATA_DIR each time.
 */
import { afterEach, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { contentKey } from "../src/store/files";
import { openStore } from "../src/store/open";
import { ROOT, startServe, type ServeProcess } from "./serve-process";
import { until } from "./wait";

const SERVE = [process.execPath, `${ROOT}/cli/main.ts`];
const ENV = { RENDER_WORKERS: "2" };

let serve: ServeProcess | undefined;
afterEach(async () => {
  await serve?.stop();
  serve = undefined;
});

type Row = { id: string; status: string; output_sha256: string | null };

async function rows(dataDir: string): Promise<Map<string, Row>> {
  const store = openStore(dataDir);
  try {
    return new Map((await store.all<Row>("SELECT id, status, output_sha256 FROM renders")).map((r) => [r.id, r]));
  } finally {
    await store.close();
  }
}

/** pdfOf answers a render's PDF as the dead process left it: its file, or its bytes still spooled in the store
 * (store/output-spool.ts), committed with the render's end but not written to the file yet. */
async function pdfOf(dataDir: string, sha256: string): Promise<{ bytes: Uint8Array; spooled: boolean }> {
  const path = `${dataDir}/${contentKey("outputs", sha256)}`;
  if (existsSync(path)) return { bytes: readFileSync(path), spooled: false };
  const store = openStore(dataDir);
  try {
    const row = await store.get<{ bytes: Uint8Array }>("SELECT bytes FROM output_spool WHERE sha256 = $sha", { sha: sha256 });
    expect(row).not.toBeNull();
    return { bytes: row!.bytes, spooled: true };
  } finally {
    await store.close();
  }
}

test("every render answered 202, or 200 succeeded, is still there after a kill -9 at any moment, and ends after the restart", async () => {
  serve = await startServe(SERVE, ENV);
  const dataDir = serve.dataDir;
  const key = await serve.makeKey(["render:create", "render:read"]);
  const accepted = new Set<string>();
  const succeeded = new Set<string>();
  const spooled = new Set<string>();
  // On a cold machine Chromium's first start can outlast the first kill's moment, and renders queued behind the
  // backlog of earlier rounds may never finish before the next kill: one render answered succeeded before the kills
  // makes sure the "succeeded survives" check always has something to check, through all three kills.
  const first = await serve.call("/v1/renders?wait=30", key, { html: "<p>before the kills</p>" });
  expect([first.status, first.body.status]).toEqual([200, "succeeded"]);
  accepted.add(first.body.id);
  succeeded.add(first.body.id);
  for (const killAfterMs of [150, 700, 1500]) {
    const live = serve;
    let killed = false;
    const client = async (waits: boolean, n: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const res = await fetch(`${live.url}/v1/renders${waits ? "?wait=10" : ""}`, {
            method: "POST",
            headers: { "x-api-key": key, "content-type": "application/json" },
            body: JSON.stringify({ html: `<p>client ${n}, render ${i}</p>` }),
          });
          const body = (await res.json()) as { id: string; status: string };
          if (res.status === 202 || res.status === 200) accepted.add(body.id);
          if (res.status === 200 && body.status === "succeeded") succeeded.add(body.id);
        } catch {
          // The process died before answering: nothing was acknowledged.
        }
      }
    };
    const clients = [client(false, 1), client(true, 2), client(false, 3), client(true, 4)];
    await Bun.sleep(killAfterMs);
    live.proc.kill("SIGKILL");
    await live.proc.exited;
    killed = true;
    await Promise.all(clients);

    const stored = await rows(dataDir);
    for (const id of accepted) expect(stored.has(id)).toBe(true);
    for (const id of succeeded) {
      const row = stored.get(id)!;
      expect(row.status).toBe("succeeded");
      const pdf = await pdfOf(dataDir, row.output_sha256!);
      expect(createHash("sha256").update(pdf.bytes).digest("hex")).toBe(row.output_sha256!);
      if (pdf.spooled) spooled.add(row.output_sha256!);
    }
    serve = await startServe(SERVE, ENV, dataDir);
  }
  expect(accepted.size).toBeGreaterThan(succeeded.size);
  expect(succeeded.size).toBeGreaterThan(0);
  // After the last restart every acknowledged render reaches a final state: printed again if it was cut off (a render
  // cut off twice fails, spec 3.2's one recovery), never lost.
  await until(async () => [...(await rows(dataDir)).values()].every((r) => r.status !== "queued" && r.status !== "processing"), 60_000);
  const final = await rows(dataDir);
  for (const id of accepted) expect(["succeeded", "failed"]).toContain((final.get(id))!.status);
  for (const id of succeeded) expect((final.get(id))!.status).toBe("succeeded");
  // What a killed process left spooled, the next start wrote to its file: its first sweep does, beside the renders it
  // recovers (render/worker.ts), so the renders can all have ended before it has.
  const written = (sha: string) => existsSync(`${dataDir}/${contentKey("outputs", sha)}`);
  await until(async () => [...spooled].every(written), 30_000).catch(() => {});
  for (const sha of spooled) expect(written(sha)).toBe(true);
}, 120_000);
