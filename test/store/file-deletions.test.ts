/** Deleting shared bytes (src/store/file-deletions.ts, docs/architecture.md "Deleting shared bytes"), on SQLite and on a
 * throw-away PostgreSQL cluster. Two stores on one database and two file stores on one folder stand in for two renderd
 * processes sharing a store and a bucket; one manual clock is both processes' time. */
import { describe, expect, test } from "bun:test";
import { utimesSync } from "node:fs";
import { CLI_ACTOR } from "../../src/auth/actor";
import { ManualClock } from "../../src/lib/clock";
import { deleteAsset, receiveUpload, registerAsset, sweepOrphanFiles, type AssetDeps } from "../../src/modules/assets/service";
import { createWorkspace } from "../../src/modules/workspaces/service";
import { dropFile, FILE_DELETE_GRACE_MS, FILE_HOLD_MS, holdFile, releaseFile, sweepFileDeletions } from "../../src/store/file-deletions";
import type { FileArea, TempFile } from "../../src/store/files";
import { DiskFiles } from "../../src/store/files-disk";
import { ENGINES, testStores, type Engine } from "./engines";

const MIN = 60_000;
const ctx = { actor: CLI_ACTOR, requestId: "req_file_deletions" };
const config = { publicUrl: "http://renderd.test", secretKey: "file-deletions-secret-0123456789abcdef" };
const stores = testStores("deletions");

/** Gate pauses a file operation at one point until the test lets it go on. */
class Gate {
  readonly reached = Promise.withResolvers<void>();
  readonly go = Promise.withResolvers<void>();
  async pass(): Promise<void> {
    this.reached.resolve();
    await this.go.promise;
  }
}

/** A process's files that pause once their bytes are stored (before the row is committed). */
class PausingAfterCommit extends DiskFiles {
  gate?: Gate;
  override async commit(area: FileArea, temp: TempFile): Promise<void> {
    await super.commit(area, temp);
    await this.gate?.pass();
  }
}

/** A process's files that pause before a deletion (after the sweep has marked it). */
class PausingBeforeDelete extends DiskFiles {
  gate?: Gate;
  override async delete(area: FileArea, sha256: string): Promise<void> {
    await this.gate?.pass();
    await super.delete(area, sha256);
  }
}

interface TwoProcesses {
  clock: ManualClock;
  a: AssetDeps & { files: PausingAfterCommit };
  b: AssetDeps & { files: PausingBeforeDelete };
  workspaceId: string;
}

let n = 0;
async function twoProcesses(engine: Engine): Promise<TwoProcesses> {
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  const place = await stores.place(engine);
  const { dataDir } = place;
  const storeA = await stores.open(place, clock);
  const storeB = await stores.open(place, clock);
  const workspaceId = (await storeA.tx((tx) => createWorkspace(tx, clock, ctx, { name: "Shared" }))).id;
  return {
    clock,
    a: { store: storeA, clock, files: new PausingAfterCommit(dataDir), config },
    b: { store: storeB, clock, files: new PausingBeforeDelete(dataDir), config },
    workspaceId,
  };
}

function css(label: string): Uint8Array {
  return new TextEncoder().encode(`a { color: red } /* ${label} ${++n} */`);
}

function sha(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

/** startUpload registers `bytes` as a stylesheet and starts uploading them through `deps` (not awaited). */
async function startUpload(deps: AssetDeps, workspaceId: string, bytes: Uint8Array): Promise<{ id: string; done: Promise<unknown>; }> {
  const created = await registerAsset(deps, ctx, workspaceId, { kind: "stylesheet", mediaType: "text/css", filename: "shared.css", size: bytes.byteLength, sha256: sha(bytes) });
  const token = new URL(created.uploadUrl).searchParams.get("token");
  const body = (async function* () {
    yield bytes;
  })();
  return { id: created.id, done: receiveUpload(deps, "req_upload", created.id, token, { contentLength: String(bytes.byteLength), body }) };
}

async function upload(deps: AssetDeps, workspaceId: string, bytes: Uint8Array): Promise<string> {
  const started = await startUpload(deps, workspaceId, bytes);
  await started.done;
  return started.id;
}

const sweep = (p: AssetDeps) => sweepFileDeletions(p.store, p.files, p.clock);
const stored = async (p: AssetDeps, bytes: Uint8Array) => (await p.files.read("assets", sha(bytes))) !== null;

for (const engine of ENGINES) {
  describe(`deleting shared bytes on ${engine}`, () => {
    test("process A stores bytes process B is dropping the last reference to: B's deletion leaves them, A's row names them", async () => {
      const { clock, a, b, workspaceId } = await twoProcesses(engine);
      const bytes = css("race");
      const old = await upload(b, workspaceId, bytes);

      // A has stored the same bytes and is about to commit the row that references them.
      a.files.gate = new Gate();
      const second = await startUpload(a, workspaceId, bytes);
      await a.files.gate.reached.promise;

      // B drops the old asset, then every sweep B can run finds the bytes held, even as an orphan older than the grace.
      await deleteAsset(b, ctx, workspaceId, old);
      clock.advance(FILE_HOLD_MS - MIN);
      utimesSync(b.files.path("assets", sha(bytes)), new Date("2020-01-01"), new Date("2020-01-01"));
      expect(await sweepOrphanFiles(b)).toBe(0);
      expect(await sweep(b)).toBe(0);
      expect(await stored(b, bytes)).toBe(true);

      a.files.gate.go.resolve();
      await second.done;
      clock.advance(FILE_DELETE_GRACE_MS + MIN);
      expect(await sweep(b)).toBe(0);
      expect(await b.files.read("assets", sha(bytes))).toEqual(bytes);
      expect(await a.store.get("SELECT status FROM assets WHERE id = $id", { id: second.id })).toEqual({ status: "uploaded" });
    });

    test("a sweep already deleting the bytes: A waits, then stores them again after the deletion", async () => {
      const { clock, a, b, workspaceId } = await twoProcesses(engine);
      const bytes = css("deleting");
      await deleteAsset(b, ctx, workspaceId, await upload(b, workspaceId, bytes));
      clock.advance(FILE_DELETE_GRACE_MS + MIN);

      b.files.gate = new Gate();
      const sweeping = sweep(b);
      await b.files.gate.reached.promise;
      const second = await startUpload(a, workspaceId, bytes);
      await Bun.sleep(300);
      // A takes no hold while B is deleting: B's DELETE request lands before A stores anything.
      expect(await a.store.get("SELECT COUNT(*) AS n FROM file_holds")).toEqual({ n: 0 });

      b.files.gate.go.resolve();
      expect(await sweeping).toBe(1);
      await second.done;
      expect(await b.files.read("assets", sha(bytes))).toEqual(bytes);
      expect(await a.store.get("SELECT COUNT(*) AS n FROM file_deletions")).toEqual({ n: 0 });
    });

    test("an unreferenced file goes once the grace is over, not before; an upload of the same bytes meanwhile keeps it", async () => {
      const { clock, a, b, workspaceId } = await twoProcesses(engine);
      const gone = css("gone");
      const kept = css("kept");
      await deleteAsset(a, ctx, workspaceId, await upload(a, workspaceId, gone));
      await deleteAsset(a, ctx, workspaceId, await upload(a, workspaceId, kept));
      clock.advance(FILE_DELETE_GRACE_MS - 1);
      expect(await sweep(b)).toBe(0);
      expect(await stored(b, gone)).toBe(true);

      await upload(b, workspaceId, kept);
      clock.advance(1);
      expect(await sweep(b)).toBe(1);
      expect(await stored(b, gone)).toBe(false);
      expect(await stored(b, kept)).toBe(true);
    });

    test("a dead writer's hold runs out: its bytes go a grace later; its late commit is refused", async () => {
      const { clock, a, b } = await twoProcesses(engine);
      const bytes = css("dead");
      expect(await holdFile(a.store, clock, "outputs", sha(bytes), "rnd_dead")).toBe(true);
      await a.files.put("outputs", "rnd_dead", bytes);
      clock.advance(FILE_HOLD_MS - 1);
      expect(await sweep(b)).toBe(0);
      clock.advance(1);
      expect(await sweep(b)).toBe(0);
      expect(await a.store.tx(async (tx) => releaseFile(tx, clock, "outputs", sha(bytes), "rnd_dead"))).toBe(false);
      clock.advance(FILE_DELETE_GRACE_MS);
      expect(await sweep(b)).toBe(1);
      expect(await b.files.read("outputs", sha(bytes))).toBeNull();
    });

    test("a deletion left 'deleting' by a sweep that died is done by a later sweep; a writer is refused meanwhile", async () => {
      const { clock, a, b } = await twoProcesses(engine);
      const bytes = css("stale");
      await a.files.put("outputs", "rnd_x", bytes);
      await a.store.tx(async (tx) => dropFile(tx, clock, "outputs", sha(bytes)));
      clock.advance(FILE_DELETE_GRACE_MS);
      await a.store.tx((tx) => tx.run("UPDATE file_deletions SET state = 'deleting', started_at = $t", { t: clock.now().toISOString() }));
      expect(await holdFile(b.store, clock, "outputs", sha(bytes), "rnd_y")).toBe(false);
      clock.advance(14 * MIN);
      expect(await sweep(b)).toBe(0);
      clock.advance(MIN);
      expect(await sweep(b)).toBe(1);
      expect(await b.files.read("outputs", sha(bytes))).toBeNull();
      expect(await holdFile(b.store, clock, "outputs", sha(bytes), "rnd_y")).toBe(true);
    });

    test("the orphan scan at start schedules only files older than the grace that nothing references or holds", async () => {
      const { clock, a, b, workspaceId } = await twoProcesses(engine);
      const [old, young, held, referenced] = [css("old"), css("young"), css("held"), css("referenced")];
      await upload(a, workspaceId, referenced);
      for (const bytes of [old, young, held]) await a.files.put("assets", "x", bytes);
      expect(await holdFile(a.store, clock, "assets", sha(held), "ast_held")).toBe(true);
      const aged = new Date(clock.now().getTime() - FILE_DELETE_GRACE_MS - 1);
      for (const bytes of [old, held, referenced]) utimesSync(a.files.path("assets", sha(bytes)), aged, aged);
      utimesSync(a.files.path("assets", sha(young)), clock.now(), clock.now());

      expect(await sweepOrphanFiles(b)).toBe(1);
      expect(await sweep(b)).toBe(1);
      expect([await stored(b, old), await stored(b, young), await stored(b, held), await stored(b, referenced)]).toEqual([false, true, true, true]);
    });
  });
}
