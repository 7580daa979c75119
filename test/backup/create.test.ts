/** create: a backup of an appliance whose files are in an S3 bucket holds the store and key, and names no file missing;
 * a PDF the store still holds spooled is archived as a file. */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_ACTOR } from "../../src/auth/actor";
import { createBackup } from "../../src/backup/create";
import { withReadOnly } from "../../src/backup/snapshot";
import { ManualClock } from "../../src/lib/clock";
import { sha256Hex } from "../../src/lib/hash";
import { createWorkspace } from "../../src/modules/workspaces/service";
import { contentKey } from "../../src/store/files";
import { DiskFiles } from "../../src/store/files-disk";
import { migrate } from "../../src/store/migrate";
import { SpooledFiles } from "../../src/store/output-spool";
import { openStore } from "../../src/store/open";

const dir = mkdtempSync(join(tmpdir(), "renderd-backup-create-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("with filesInBucket the archive holds the store only; without it a file not under DATA_DIR is reported missing", async () => {
  const data = join(dir, "data");
  mkdirSync(data);
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  const store = openStore(data);
  await migrate(store, clock);
  const ws = await store.tx((tx) => createWorkspace(tx, clock, { actor: CLI_ACTOR, requestId: "test" }, { name: "Acme", slug: "acme" }));
  // An uploaded asset whose bytes live in the bucket, not under DATA_DIR.
  await store.tx(async (tx) => tx.run(
    `INSERT INTO assets (id, workspace_id, kind, filename, media_type, size, sha256, status, created_at, upload_expires_at, registered_by)
     VALUES ('ast_1', $ws, 'image', 'a.png', 'image/png', 10, $sha, 'uploaded', $t, $t, '{}')`,
    { ws: ws.id, sha: "ab".repeat(32), t: clock.now().toISOString() },
  ));
  await store.close();
  const options = { dataDir: data, secretKey: "k".repeat(32), now: clock.now() };
  const bucket = await createBackup({ ...options, out: join(dir, "bucket.tar.gz"), filesInBucket: true });
  expect(bucket.missing).toEqual([]);
  expect(bucket.manifest.files.map((f) => f.path).filter((p) => p.startsWith("assets/"))).toEqual([]);
  const disk = await createBackup({ ...options, out: join(dir, "disk.tar.gz") });
  expect(disk.missing.map((m) => m.path)).toEqual([`assets/ab/ab/${"ab".repeat(32)}`]);
});

test("a PDF still spooled in the store is archived as its file, the archive's store spools nothing, and the live store is left as it was", async () => {
  const data = join(dir, "spooled");
  mkdirSync(data);
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  const store = openStore(data);
  await migrate(store, clock);
  const ws = await store.tx((tx) => createWorkspace(tx, clock, { actor: CLI_ACTOR, requestId: "test" }, { name: "Acme", slug: "acme" }));
  const pdf = new TextEncoder().encode("%PDF-1.7 committed, not yet written to its file");
  const sha = sha256Hex(pdf);
  // A render ended with its PDF spooled (store/output-spool.ts) by a serve that stopped before writing the file.
  await store.tx(async (tx) => {
    new SpooledFiles(new DiskFiles(data), store, clock).spool(tx, sha, pdf);
    await tx.run(`INSERT INTO renders (id, workspace_id, status, test, source, filename, created_at, output_sha256) VALUES ('rnd_1', $ws, 'succeeded', 0, 'html', 'a.pdf', $t, $sha)`, {
      ws: ws.id,
      t: clock.now().toISOString(),
      sha,
    });
  });
  const out = join(dir, "spooled.tar.gz");
  const made = await createBackup({ dataDir: data, secretKey: "k".repeat(32), now: clock.now(), out });
  expect(made.missing).toEqual([]);
  expect(made.manifest.files.find((f) => f.path.startsWith("outputs/"))).toEqual({ path: contentKey("outputs", sha), size: pdf.byteLength, sha256: sha });
  expect(new Uint8Array(Bun.spawnSync(["tar", "-xzOf", out, contentKey("outputs", sha)]).stdout)).toEqual(pdf);
  const restored = join(dir, "restored.db");
  writeFileSync(restored, Bun.spawnSync(["tar", "-xzOf", out, "renderd.db"]).stdout);
  withReadOnly(restored, (db) => expect(db.query("SELECT COUNT(*) AS n FROM output_spool").get()).toEqual({ n: 0 }));
  expect(await store.all("SELECT sha256 FROM output_spool")).toEqual([{ sha256: sha }]);
  await store.close();
});
