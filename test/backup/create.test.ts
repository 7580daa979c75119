/** create: a backup of an appliance whose files are in an S3 bucket holds the store and key, and names no file missing. */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_ACTOR } from "../../src/auth/actor";
import { createBackup } from "../../src/backup/create";
import { ManualClock } from "../../src/lib/clock";
import { createWorkspace } from "../../src/modules/workspaces/service";
import { migrate } from "../../src/store/migrate";
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
