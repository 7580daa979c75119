/** snapshot: VACUUM INTO takes the committed store of one instant without waiting for a writer, and names the files it references. */
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkIntegrity, migrationLevel, referencedFiles, takeSnapshot, withReadOnly } from "../../src/backup/snapshot";
import { ManualClock } from "../../src/lib/clock";
import { CLI_ACTOR } from "../../src/auth/actor";
import { createWorkspace } from "../../src/modules/workspaces/service";
import { migrate } from "../../src/store/migrate";
import { MIGRATIONS } from "../../src/store/migrations";
import { openStore } from "../../src/store/open";

const dir = mkdtempSync(join(tmpdir(), "renderd-snapshot-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha = (c: string) => c.repeat(64);

test("a snapshot holds what was committed, not a writer's open transaction, and lists each referenced file once", async () => {
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  const store = openStore(dir);
  await migrate(store, clock);
  const ws = await store.tx((tx) => createWorkspace(tx, clock, { actor: CLI_ACTOR, requestId: "test" }, { name: "Acme", slug: "acme" }));
  const asset = async (id: string, hash: string, status: string) =>
    await store.tx(async (tx) => tx.run(
      `INSERT INTO assets (id, workspace_id, kind, filename, media_type, size, sha256, status, created_at, upload_expires_at, registered_by)
       VALUES ($id, $ws, 'image', 'a.png', 'image/png', 10, $sha, $status, $t, $t, '{}')`,
      { id, ws: ws.id, sha: hash, status, t: clock.now().toISOString() },
    ));
  const render = async (id: string, output: string | null) =>
    await store.tx(async (tx) => tx.run(
      `INSERT INTO renders (id, workspace_id, status, test, source, filename, created_at, output_sha256) VALUES ($id, $ws, 'succeeded', 0, 'html', 'a.pdf', $t, $out)`,
      { id, ws: ws.id, t: clock.now().toISOString(), out: output },
    ));
  await asset("ast_1", sha("a"), "uploaded");
  await asset("ast_2", sha("a"), "uploaded"); // two assets sharing one file
  await asset("ast_3", sha("b"), "pending"); // no bytes yet
  await render("rnd_1", sha("c"));
  await render("rnd_2", sha("c"));
  await render("rnd_3", null);

  // A second connection (serve) holds a write transaction open while the snapshot is taken.
  const writer = openStore(dir);
  writer.db.run("BEGIN IMMEDIATE");
  writer.db.query(`INSERT INTO renders (id, workspace_id, status, test, source, filename, created_at, output_sha256) VALUES ('rnd_late', $ws, 'succeeded', 0, 'html', 'b.pdf', 'x', $out)`).run({
    ws: ws.id,
    out: sha("d"),
  });
  const started = performance.now();
  takeSnapshot(join(dir, "renderd.db"), join(dir, "snapshot.db"));
  expect(performance.now() - started).toBeLessThan(4000); // well under busy_timeout: it did not wait for the writer
  writer.db.run("COMMIT");
  await writer.close();
  await store.close();

  withReadOnly(join(dir, "snapshot.db"), (db) => {
    expect(checkIntegrity(db)).toEqual([]);
    expect(migrationLevel(db)).toEqual({ version: MIGRATIONS.at(-1)!.version, name: MIGRATIONS.at(-1)!.name });
    expect(referencedFiles(db)).toEqual([`assets/aa/aa/${sha("a")}`, `outputs/cc/cc/${sha("c")}`]);
  });
});

test("an empty or foreign SQLite file has no migration and references nothing", () => {
  const empty = new Database(join(dir, "empty.db"));
  empty.run("CREATE TABLE other (x)");
  expect(migrationLevel(empty)).toEqual({ version: 0, name: "" });
  expect(referencedFiles(empty)).toEqual([]);
  expect(checkIntegrity(empty, "quick_check")).toEqual([]);
  empty.close();
});
