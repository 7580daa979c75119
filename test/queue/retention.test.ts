/** retention of what issue 30 keeps beside a render: an operation's further PDFs (a split's parts) and the page images
 * drawn of them go with the render, their bytes' deletion recorded in the sweep's transaction. */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_ACTOR } from "../../src/auth/actor";
import { ManualClock } from "../../src/lib/clock";
import { createWorkspace } from "../../src/modules/workspaces/service";
import { StoreQueue } from "../../src/queue/store-queue";
import { isReferenced } from "../../src/store/file-deletions";
import { migrate } from "../../src/store/migrate";
import { openStore } from "../../src/store/open";
import { keepPageImage } from "../../src/store/page-images";
import { recordOutputs } from "../../src/store/render-outputs";

const dataDir = mkdtempSync(join(tmpdir(), "renderd-retention-"));
const clock = new ManualClock();
const store = openStore(dataDir);
await migrate(store, clock);
afterAll(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const sha = (c: string) => c.repeat(64);

test("a swept operation takes its parts and their page images with it; bytes another render still names stay", async () => {
  const queue = new StoreQueue(store, clock, 30_000);
  const ws = (await store.tx((tx) => createWorkspace(tx, clock, { actor: CLI_ACTOR, requestId: "req_t" }, { name: "Acme" }))).id;
  const common = { workspaceId: ws, test: false, source: "document", templateId: null, templateVersion: null, batchId: null, batchMerge: false, filename: "split.pdf", metadata: "{}", job: "{}" };
  for (const id of ["pdo_split", "rnd_keeps"])
    await store.tx((tx) => queue.enqueue(tx, { ...common, id, kind: id.startsWith("pdo") ? "operation" : "render", createdAt: clock.now().toISOString() }));
  expect(await queue.claim()).not.toBeNull();
  expect(await queue.claim()).not.toBeNull();
  await store.tx(async (tx) => {
    await queue.complete(tx, "pdo_split", { outputSha256: sha("a"), pages: 1, bytes: 10 });
    await recordOutputs(tx, "pdo_split", [{ sha256: sha("a"), pages: 1, bytes: 10 }, { sha256: sha("b"), pages: 2, bytes: 20 }], '{"operation":"split"}');
    await keepPageImage(tx, clock, { pdfSha256: sha("b"), page: 1, variant: "png:w800", sha256: sha("c"), bytes: 5 });
    // Another render has the first part's bytes: they stay.
    await queue.complete(tx, "rnd_keeps", { outputSha256: sha("a"), pages: 1, bytes: 10 });
  });
  expect(await isReferenced(store, "outputs", sha("b"))).toBe(true);
  expect(await isReferenced(store, "outputs", sha("c"))).toBe(true);
  await store.tx((tx) => tx.run("UPDATE renders SET finished_at = '2000-01-01T00:00:00.000Z' WHERE id = 'pdo_split'"));
  expect(await queue.sweep(30)).toEqual({ renders: 1, outputs: 1 });
  expect(await store.all("SELECT * FROM render_outputs")).toEqual([]);
  expect(await store.all("SELECT * FROM page_images")).toEqual([]);
  const deletions = (await store.all<{ sha256: string }>("SELECT sha256 FROM file_deletions ORDER BY sha256")).map((r) => r.sha256);
  expect(deletions).toEqual([sha("b"), sha("c")]);
  expect(await isReferenced(store, "outputs", sha("a"))).toBe(true);
});
