/** cli on PostgreSQL: the operator's commands run as real processes against DATABASE_URL (a shared store from
 * test/backends.ts) and what they wrote is read back from PostgreSQL. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgresStore } from "../../src/store/postgres-store";
import { sharedStoreEnv } from "../backends";
import { cliOutput, runCli, type CliRun } from "./run-cli";

const dataDir = mkdtempSync(join(tmpdir(), "renderd-cli-pg-"));
let env: Record<string, string>;
let store: PostgresStore;

beforeAll(async () => {
  env = await sharedStoreEnv();
});
afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const renderd = (args: string[], extra: Record<string, string | undefined> = {}): CliRun => runCli(args, { DATA_DIR: dataDir, LOG_LEVEL: "silent", ...env, ...extra });
const ok = (args: string[]): string => cliOutput(renderd(args), args);

describe("the CLI on DATABASE_URL", () => {
  test("migrate applies the migrations to PostgreSQL once; a second run applies none", async () => {
    expect(ok(["migrate"])).toMatch(/^applied 0001_init, /);
    expect(ok(["migrate"])).not.toContain("0001_init");
    store = await PostgresStore.open(env.DATABASE_URL!);
    expect((await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM schema_migrations"))!.n).toBeGreaterThanOrEqual(11);
  });

  test("workspaces, users, keys, allowances, suspend and restore write to PostgreSQL, audited as system/cli", async () => {
    const ws = JSON.parse(ok(["workspaces", "create", "Acme Corp", "--json"]));
    expect(ok(["workspaces", "list"])).toContain("acme-corp");
    JSON.parse(ok(["users", "create", "--email", "ops@example.com", "--workspace", "acme-corp", "--role", "admin", "--json"]));
    const key = JSON.parse(ok(["keys", "create", "--workspace", "acme-corp", "--name", "ci", "--scope", "render:create", "--json"]));
    expect(key.secret).toMatch(/^rd_/);
    ok(["allowances", "set", "--workspace", "acme-corp", "--max-active-renders", "5", "--renders-per-minute", "100"]);
    expect(ok(["suspend", "acme-corp"])).toMatch(/^suspended workspace acme-corp/);
    expect(ok(["restore", "acme-corp"])).toContain("acme-corp");
    expect(await store.get("SELECT slug, max_active_renders, suspended FROM workspaces WHERE id = $id", { id: ws.id })).toEqual({ slug: "acme-corp", max_active_renders: 5, suspended: 0 });
    expect(await store.get("SELECT email FROM users WHERE email = 'ops@example.com'")).toEqual({ email: "ops@example.com" });
    expect((await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM api_keys WHERE workspace_id = $ws", { ws: ws.id }))!.n).toBe(1);
    const actions = (await store.all<{ action: string; }>("SELECT action FROM audit_events WHERE workspace_id = $ws ORDER BY id", { ws: ws.id })).map((r) => r.action);
    expect(actions).toEqual(["workspace.created", "user.created", "api_key.created", "workspace.allowances_updated", "workspace.suspended", "workspace.restored"]);
  });

  test("a shared store without REDIS_URL is refused in one line, exit 2, without echoing the database password", () => {
    const r = renderd(["workspaces", "list"], { REDIS_URL: undefined, DATABASE_URL: env.DATABASE_URL!.replace("postgres@", "postgres:hunter2@") });
    expect(r.code).toBe(2);
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(r.err).toContain("needs REDIS_URL");
    expect(r.err).not.toContain("hunter2");
  });
});
