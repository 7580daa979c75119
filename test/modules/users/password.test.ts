/** users/service passwords: the rule (pure) and replacePassword on a real store — sessions ended, audit rows, the race guard. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { passwordProblem } from "../../../src/lib/passwords";
import { ManualClock } from "../../../src/lib/clock";
import { CLI_ACTOR } from "../../../src/auth/actor";
import { signIn } from "../../../src/modules/auth/service";
import { findUser } from "../../../src/auth/accounts";
import { createUser, hashPassword, replacePassword } from "../../../src/modules/users/service";
import { createWorkspace } from "../../../src/modules/workspaces/service";
import { migrate } from "../../../src/store/migrate";
import { openStore } from "../../../src/store/open";

describe("passwordProblem", () => {
  test.each([
    ["a".repeat(11), undefined, "must be 12 to 1024 characters (got 11)"],
    ["a".repeat(12), undefined, null],
    ["a".repeat(1024), undefined, null],
    ["a".repeat(1025), undefined, "must be 12 to 1024 characters (got 1025)"],
    ["same passphrase!", "same passphrase!", "must differ from the current password"],
    ["new passphrase!!", "old passphrase!!", null],
  ])("%#", (password, current, problem) => {
    expect(passwordProblem(password, current)).toBe(problem);
  });
});

describe("replacePassword", () => {
  const dir = mkdtempSync(join(tmpdir(), "renderd-passwords-"));
  const store = openStore(dir);
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const ctx = { actor: CLI_ACTOR, requestId: "req_test" };

  test("ends every session but the one kept, audits in each workspace of the user, and refuses a stale expected hash", async () => {
    await migrate(store, clock);
    const [a, b] = [store.tx((tx) => createWorkspace(tx, clock, ctx, { name: "A", slug: "a" })), store.tx((tx) => createWorkspace(tx, clock, ctx, { name: "B", slug: "b" }))];
    const user = await store.tx(async (tx) => createUser(tx, clock, ctx, { email: "u@example.test", passwordHash: await hashPassword("first passphrase"), workspace: (await a).id, role: "owner", platformAdmin: false }));
    await store.tx(async (tx) => tx.run("INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ($ws, $user, 'member', $now)", { ws: (await b).id, user: user.id, now: clock.now().toISOString() }));
    for (let i = 0; i < 3; i++) await signIn(store, clock, "req_signin", "u@example.test", "first passphrase");
    const kept = (await store.get<{ id: string }>("SELECT id FROM sessions WHERE user_id = $u ORDER BY created_at, id LIMIT 1", { u: user.id }))!.id;
    const before = (await findUser(store, user.id))!.password_hash;

    expect(await replacePassword(store, clock, ctx, user, await hashPassword("second passphrase"), { keepSessionId: kept, expectedHash: before })).toEqual({ sessionsEnded: 2 });
    expect(await store.all<{ id: string }>("SELECT id FROM sessions WHERE user_id = $u", { u: user.id })).toEqual([{ id: kept }]);
    const audited = await store.all<{ workspace_id: string }>("SELECT workspace_id FROM audit_events WHERE action = 'user.password_changed' ORDER BY workspace_id");
    expect(audited.map((r) => r.workspace_id)).toEqual([(await a).id, (await b).id].sort());

    // A change verified against the old hash, arriving after another change, is refused and changes nothing.
    const current = (await findUser(store, user.id))!.password_hash;
    await expect(replacePassword(store, clock, ctx, user, "x", { expectedHash: before })).rejects.toThrow("changed meanwhile");
    expect((await findUser(store, user.id))!.password_hash).toBe(current);
    expect((await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM sessions WHERE user_id = $u", { u: user.id }))!.n).toBe(1);
  });
});
