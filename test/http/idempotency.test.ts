/** The parts of Idempotency-Key that a live server cannot show: a process that dies in the middle of a request. The
 * store is real; a request whose work never ends stands for the process that died while it ran. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ApiKeyPrincipal } from "../../src/auth/principal";
import { ApiError } from "../../src/errors";
import { idempotent } from "../../src/http/idempotency";
import { ManualClock } from "../../src/lib/clock";
import { CLI_ACTOR } from "../../src/auth/actor";
import { createWorkspace } from "../../src/modules/workspaces/service";
import { migrate } from "../../src/store/migrate";
import { openStore } from "../../src/store/open";
import type { SqliteStore } from "../../src/store/sqlite-store";

const ABANDONED_MS = 10 * 60 * 1000;

let dir: string;
let store: SqliteStore;
let principal: ApiKeyPrincipal;
const clock = new ManualClock("2026-03-10T10:00:00.000Z");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "renderd-idempotency-"));
  store = openStore(dir);
  await migrate(store, clock);
  const ws = await store.tx((tx) => createWorkspace(tx, clock, { actor: CLI_ACTOR, requestId: "test" }, { name: "Idempotency" }));
  principal = { kind: "api_key", keyId: "key_test", workspaceId: ws.id, scopes: new Set(), actor: { type: "api_key", id: "key_test", name: "test" } };
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const once = () => idempotent({ store, clock });
const context = (key: string, body: unknown = { html: "<p>x</p>" }) => ({
  request: new Request("http://renderd.test/v1/renders", { method: "POST", headers: { "idempotency-key": key } }),
  body,
  principal,
  set: { headers: {} as Record<string, unknown>, status: undefined as number | undefined },
});
const never = new Promise<never>(() => {});
const errorOf = async (p: Promise<unknown>) => p.then(() => null, (e: ApiError) => e);

describe("a process that dies while a request with an Idempotency-Key runs", () => {
  test("after the render was created: a retry gets the answer kept with it, never a second render", async () => {
    let created = 0;
    // The first request creates, then waits for ever: the process died during its ?wait.
    void once()(context("died-waiting"), async (kept) => {
      await kept(202, async () => ({ id: `rnd_${++created}`, status: "queued" }));
      return never;
    });
    const running = await errorOf(once()(context("died-waiting"), () => ({ id: "again" })));
    expect(running).toMatchObject({ code: "CONFLICT", message: expect.stringContaining("still running") });

    clock.advance(ABANDONED_MS);
    const ctx = context("died-waiting");
    const retry = await once()(ctx, (kept) => kept(202, async () => ({ id: `rnd_${++created}`, status: "queued" })));
    expect(retry).toEqual({ id: "rnd_1", status: "queued" });
    expect(ctx.set.status).toBe(202);
    expect(ctx.set.headers["idempotent-replayed"]).toBe("true");
    expect(created).toBe(1);
  });

  test("before anything was created: once abandoned, the key runs the request anew", async () => {
    void once()(context("died-early"), () => never);
    clock.advance(ABANDONED_MS - 1);
    expect(await errorOf(once()(context("died-early"), () => "second"))).toMatchObject({ code: "CONFLICT" });
    clock.advance(1);
    expect(await once()(context("died-early"), () => "second")).toBe("second");
  });

  test("a retryable failure after the creation keeps the answer given with what was created", async () => {
    const first = await errorOf(
      once()(context("created-then-failed"), async (kept) => {
        await kept(202, async () => ({ id: "rnd_kept" }));
        throw new ApiError("INTERNAL", "lost while waiting");
      }),
    );
    expect(first).toMatchObject({ code: "INTERNAL" });
    expect(await once()(context("created-then-failed"), () => ({ id: "rnd_second" }))).toEqual({ id: "rnd_kept" });
  });

  test("a creation that throws keeps nothing: its transaction and the answer roll back together", async () => {
    const failed = await errorOf(
      once()(context("creation-failed"), (kept) =>
        kept(202, async (tx) => {
          await tx.run("UPDATE workspaces SET name = 'changed' WHERE id = $id", { id: principal.workspaceId });
          throw new ApiError("INTERNAL", "the creation failed");
        }),
      ),
    );
    expect(failed).toMatchObject({ code: "INTERNAL" });
    expect((await store.get<{ name: string }>("SELECT name FROM workspaces WHERE id = $id", { id: principal.workspaceId }))!.name).toBe("Idempotency");
    expect(await once()(context("creation-failed"), () => "ran again")).toBe("ran again");
  });
});
