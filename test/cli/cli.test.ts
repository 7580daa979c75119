/** cli: the operator's commands run as real processes against a temp DATA_DIR; the store is read back to check them. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../src/lib/clock";
import { signIn } from "../../src/modules/auth/service";
import { openStore } from "../../src/store/open";
import { cliOutput, runCli, type CliRun } from "./run-cli";

const dataDir = mkdtempSync(join(tmpdir(), "renderd-cli-"));
const otherDir = mkdtempSync(join(tmpdir(), "renderd-cli-other-"));

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(otherDir, { recursive: true, force: true });
});

/** renderd runs `bun cli/main.ts ...args` on the temp DATA_DIR, optionally feeding stdin. */
const renderd = (args: string[], stdin?: string): CliRun => runCli(args, { DATA_DIR: dataDir, LOG_LEVEL: "silent" }, stdin);
const ok = (args: string[], stdin?: string): string => cliOutput(renderd(args, stdin), args);

function json<T = any>(args: string[], stdin?: string): T {
  return JSON.parse(ok([...args, "--json"], stdin)) as T;
}

/** refused asserts a non-zero exit with exactly one stderr line, and answers that line. */
function refused(args: string[]): string {
  const r = renderd(args);
  expect(r.code).not.toBe(0);
  expect(r.out).toBe("");
  const lines = r.err.trim().split("\n");
  expect(lines).toHaveLength(1);
  return lines[0];
}

async function readStore<T>(fn: (store: ReturnType<typeof openStore>) => T | Promise<T>): Promise<T> {
  const store = openStore(dataDir);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

// The tests share one store and run in order, like an operator's session; `migrate` starts it (the other commands
// refuse to create a store).
beforeAll(() => {
  ok(["migrate"]);
  ok(["migrate", "--data-dir", otherDir]);
});
// The tests share one store and run in order, like an operator's session.
const state: { acmeId?: string; keyId?: string } = {};

describe("workspaces", () => {
  test("create answers the workspace with default allowances; a taken slug is refused", () => {
    const ws = json(["workspaces", "create", "Acme Corp"]);
    expect(ws).toMatchObject({ name: "Acme Corp", slug: "acme-corp", maxActiveRenders: 10, rendersPerMinute: 60, documentsPerMonth: null, suspended: false });
    expect(ws.id).toMatch(/^ws_/);
    state.acmeId = ws.id;

    expect(refused(["workspaces", "create", "Another", "--slug", "acme-corp"])).toMatch(/acme-corp already exists/);
    expect(ok(["workspaces", "create", "Beta", "--slug", "beta"])).toMatch(/^created workspace beta \(ws_/);
  });

  test("list prints a table for people and JSON for scripts", () => {
    const out = ok(["workspaces", "list"]).trim().split("\n");
    expect(out[0]).toMatch(/^ID\s+SLUG\s+NAME\s+SUSPENDED$/);
    expect(out.slice(1).map((l) => l.split(/\s{2,}/)[1])).toEqual(["beta", "acme-corp"]);

    const found = json<{ slug: string }[]>(["workspaces", "list", "--search", "acme"]);
    expect(found.map((w) => w.slug)).toEqual(["acme-corp"]);
    expect(refused(["workspaces", "list", "--limit", "-1"])).toContain("--limit");
  });

  test("--data-dir overrides DATA_DIR", () => {
    expect(ok(["workspaces", "list", "--data-dir", otherDir]).trim()).toBe("no workspaces");
  });
});

describe("users", () => {
  test("create without a password generates one, prints it once, and stores its hash", async () => {
    const user = json(["users", "create", "--email", "ops@example.com", "--workspace", "acme-corp", "--role", "admin", "--platform-admin"]);
    expect(user).toMatchObject({ email: "ops@example.com", workspaceId: state.acmeId, role: "admin", platformAdmin: true });
    expect(user.generatedPassword).toMatch(/^[0-9A-Za-z]{20}$/);
    const hash = await readStore(async (s) => (await s.get<{ password_hash: string }>("SELECT password_hash FROM users WHERE id = $id", { id: user.id }))!.password_hash);
    expect(await Bun.password.verify(user.generatedPassword, hash)).toBe(true);
  });

  test("--password-stdin reads the password and prints none; the role defaults to member", async () => {
    const out = ok(["users", "create", "--email", "dev@example.com", "--workspace", "beta", "--password-stdin"], "correct horse battery\n");
    expect(out).toMatch(/^created user dev@example\.com \(usr_\w+\): member of ws_/);
    expect(out).not.toContain("password");
    const hash = await readStore(async (s) => (await s.get<{ password_hash: string }>("SELECT password_hash FROM users WHERE email = 'dev@example.com'"))!.password_hash);
    expect(await Bun.password.verify("correct horse battery", hash)).toBe(true);
  });

  test("a bad role lists the roles; an unknown workspace is refused", () => {
    expect(refused(["users", "create", "--email", "x@example.com", "--workspace", "acme-corp", "--role", "boss"])).toContain("owner, admin, member");
    expect(refused(["users", "create", "--email", "x@example.com", "--workspace", "nope"])).toContain("Workspace nope was not found");
  });
});

describe("users set-password", () => {
  const sessionsOf = (email: string) =>
    readStore(async (s) => (await s.get<{ n: number }>("SELECT COUNT(*) AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $email", { email }))!.n);

  test("reads one line from stdin, replaces the hash, ends the user's sessions, audits as system/cli", async () => {
    const store = openStore(dataDir);
    await signIn(store, systemClock, "cli-test", "dev@example.com", "correct horse battery").finally(() => store.close());
    expect(await sessionsOf("dev@example.com")).toBe(1);
    const out = ok(["users", "set-password", "--email", "dev@example.com", "--password-stdin"], "a new long passphrase\n");
    expect(out).toMatch(/^changed the password of dev@example\.com \(usr_\w+\); ended 1 session\(s\)$/m);
    expect(out).not.toContain("passphrase");
    expect(await sessionsOf("dev@example.com")).toBe(0);
    const hash = await readStore(async (s) => (await s.get<{ password_hash: string }>("SELECT password_hash FROM users WHERE email = 'dev@example.com'"))!.password_hash);
    expect(await Bun.password.verify("a new long passphrase", hash)).toBe(true);
    const audit = await readStore((s) =>
      s.all<{ actor_type: string; actor_id: string; resource_name: string; metadata: string }>("SELECT actor_type, actor_id, resource_name, metadata FROM audit_events WHERE action = 'user.password_changed'"),
    );
    expect(audit).toEqual([{ actor_type: "system", actor_id: "cli", resource_name: "dev@example.com", metadata: JSON.stringify({ sessionsEnded: 1 }) }]);
  });

  test("refused: a short password (the rule is named), two lines, no --password-stdin, an unknown e-mail", () => {
    const line = (args: string[], stdin?: string) => {
      const r = renderd(args, stdin);
      expect(r.code).toBe(2);
      return r.err.trim();
    };
    expect(line(["users", "set-password", "--email", "dev@example.com", "--password-stdin"], "short\n")).toBe(
      "renderd: Choose another password. (password: must be 12 to 1024 characters (got 5))",
    );
    expect(line(["users", "set-password", "--email", "dev@example.com", "--password-stdin"], "first line is long\nsecond\n")).toContain("one line");
    expect(line(["users", "set-password", "--email", "dev@example.com"])).toContain("--password-stdin");
    expect(line(["users", "set-password", "--email", "ghost@example.com", "--password-stdin"], "a new long passphrase\n")).toContain("No user has the e-mail ghost@example.com");
  });
});

describe("keys", () => {
  test("create prints the rd_ secret once, on its own line", () => {
    const out = ok(["keys", "create", "--workspace", "acme-corp", "--name", "ci", "--scope", "render:create,render:read", "--scope", "usage:read"]);
    const secrets = out.match(/rd_[0-9A-Za-z]{43}/g) ?? [];
    expect(secrets).toHaveLength(1);
    expect(out.split("\n")).toContain(secrets[0]!);
    expect(out).toContain("shown once");
    expect(out).toContain("scopes: render:create render:read usage:read");
  });

  test("create --json answers the key with its secret and expiry; bad scopes and bounds are refused", () => {
    const key = json(["keys", "create", "--workspace", state.acmeId!, "--name", "deploy", "--scope", "template:read", "--expires-in-days", "30"]);
    expect(key.secret).toMatch(/^rd_[0-9A-Za-z]{43}$/);
    expect(key.start).toBe(key.secret.slice(0, 8));
    expect(Date.parse(key.expiresAt) - Date.parse(key.createdAt)).toBe(30 * 86_400_000);
    state.keyId = key.id;

    const scopes = refused(["keys", "create", "--workspace", "acme-corp", "--name", "x", "--scope", "render:create,bogus"]);
    expect(scopes).toContain("bogus");
    expect(scopes).toContain("admin:manage");
    expect(refused(["keys", "create", "--workspace", "acme-corp", "--name", "x", "--scope", "render:read", "--expires-in-days", "366"])).toContain(
      "--expires-in-days must be a whole number from 1 to 365",
    );
  });

  test("list --json never carries a secret; revoke disables the key", () => {
    const keys = json<Record<string, unknown>[]>(["keys", "list", "--workspace", "acme-corp"]);
    expect(keys.map((k) => k.name)).toEqual(["deploy", "ci"]);
    for (const k of keys) expect(k).not.toHaveProperty("secret");

    expect(json(["keys", "revoke", state.keyId!, "--workspace", "acme-corp"])).toEqual({ id: state.keyId, revoked: true });
    const table = ok(["keys", "list", "--workspace", "acme-corp"]);
    expect(table).not.toMatch(/rd_[0-9A-Za-z]{43}/);
    expect(table.split("\n").find((l) => l.startsWith(state.keyId!))).toMatch(/\brevoked\b/);
  });
});

describe("allowances", () => {
  test("set replaces every field (omitted nullable → null) and get reads it back", () => {
    const set = json(["allowances", "set", "--workspace", "beta", "--max-active-renders", "5", "--renders-per-minute", "100", "--documents-per-month", "1000", "--max-storage-bytes", "null", "--test-renders-per-day", "0"]);
    expect(set).toEqual({ maxActiveRenders: 5, rendersPerMinute: 100, documentsPerMonth: 1000, maxStorageBytes: null, testRendersPerDay: 0, templateConversionsPerMonth: null, suspended: false });
    expect(json(["allowances", "get", "--workspace", "beta"])).toEqual(set);

    const replaced = json(["allowances", "set", "--workspace", "beta", "--max-active-renders", "6", "--renders-per-minute", "100"]);
    expect(replaced).toMatchObject({ maxActiveRenders: 6, documentsPerMonth: null, testRendersPerDay: null });
  });

  test("values out of bounds or not strict whole numbers are refused, naming each field", () => {
    const line = refused(["allowances", "set", "--workspace", "beta", "--max-active-renders", "0", "--renders-per-minute", "1e3", "--documents-per-month", "null", "--suspended", "yes"]);
    expect(line).toContain("--max-active-renders must be a whole number from 1 to 100000 (got 0)");
    expect(line).toContain("--renders-per-minute must be a whole number from 1 to 10000000");
    expect(line).toContain("--suspended must be true or false");
    expect(line).not.toContain("documents-per-month");
  });
});

describe("suspend and restore", () => {
  test("suspend, suspend again (already, exit 0), restore", () => {
    expect(ok(["suspend", "beta"])).toMatch(/^suspended workspace beta/);
    expect(ok(["suspend", "beta"])).toContain("already suspended");
    expect(json(["restore", "beta"])).toMatchObject({ slug: "beta", suspended: false, changed: true });
  });
});

describe("audit", () => {
  test("every change is audited with actor system/cli", async () => {
    const rows = await readStore((s) => s.all<{ action: string; actor_type: string; actor_id: string; request_id: string }>("SELECT action, actor_type, actor_id, request_id FROM audit_events WHERE action != 'user.signed_in'"));
    // (The one sign-in is the test's own, made through the service to give set-password a session to end.)
    for (const r of rows) expect([r.actor_type, r.actor_id]).toEqual(["system", "cli"]);
    for (const r of rows) expect(r.request_id).toMatch(/^req_/);
    const count = async (action: string) => rows.filter((r) => r.action === action).length;
    expect(await count("workspace.created")).toBe(2);
    expect(await count("user.created")).toBe(2);
    expect(await count("api_key.created")).toBe(2);
    expect(await count("api_key.revoked")).toBe(1);
    expect(await count("user.password_changed")).toBe(1);
    expect(await count("workspace.allowances_updated")).toBe(2);
    // The second `suspend` changed nothing, so it wrote nothing.
    expect(await count("workspace.suspended")).toBe(1);
    expect(await count("workspace.restored")).toBe(1);
  });
});

describe("--help", () => {
  const commands: [string[], string[]][] = [
    [["workspaces", "create"], ["--slug", "--json", "--data-dir"]],
    [["workspaces", "list"], ["--search", "--limit", "--json"]],
    [["users", "create"], ["--email", "--workspace", "--role", "--platform-admin", "--name", "--password", "--password-stdin", "generated", "12 to 1024"]],
    [["users", "set-password"], ["--email", "--password-stdin", "sessions", "--data-dir"]],
    [["keys", "create"], ["--workspace", "--name", "--scope", "--expires-in-days", "admin:manage"]],
    [["keys", "list"], ["--workspace", "--json"]],
    [["keys", "revoke"], ["<keyId>", "--workspace"]],
    [["allowances", "get"], ["--workspace", "--json"]],
    [
      ["allowances", "set"],
      ["--max-active-renders", "--renders-per-minute", "--documents-per-month", "--max-storage-bytes", "--test-renders-per-day", "--template-conversions-per-month", "--suspended", "becomes null", "becomes false"],
    ],
    [["suspend"], ["<workspace>", "--json", "--data-dir"]],
    [["restore"], ["<workspace>", "--json", "--data-dir"]],
  ];
  for (const [command, mentions] of commands) {
    test(command.join(" "), () => {
      const out = ok([...command, "--help"]).replace(/\s+/g, " ");
      for (const m of mentions) expect(out).toContain(m);
    });
  }
});
