/** cli data-dir: only `serve`, `migrate` (and commands that declare it) may start a store; every other command names
 * the store it looked for and the settings that point at the right one, and creates nothing. */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const MAIN = join(ROOT, "cli/main.ts");
const work = mkdtempSync(join(tmpdir(), "renderd-cli-datadir-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Run {
  code: number;
  out: string;
  err: string;
}

/** renderd runs `bun cli/main.ts ...args` in `cwd` with exactly `env` (no DATA_DIR unless given). */
function renderd(args: string[], cwd: string, env: Record<string, string> = {}, stdin?: string): Run {
  const r = Bun.spawnSync([process.execPath, MAIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", ...env },
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

/** refusedLine asserts exit 2, nothing on stdout and one stderr line, and answers the line. */
function refusedLine(r: Run): string {
  expect(r.code).toBe(2);
  expect(r.out).toBe("");
  const lines = r.err.trim().split("\n");
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

const storeCommands: [string[], string?][] = [
  [["workspaces", "list"]],
  [["workspaces", "create", "Acme"]],
  [["users", "create", "--email", "a@example.com", "--workspace", "default"]],
  [["users", "set-password", "--email", "a@example.com", "--password-stdin"], "a long enough passphrase\n"],
  [["keys", "create", "--workspace", "default", "--name", "ci", "--scope", "render:read"]],
  [["keys", "list", "--workspace", "default"]],
  [["allowances", "get", "--workspace", "default"]],
  [["suspend", "default"]],
  [["restore", "default"]],
  [["usage", "export"]],
];

describe("a command run where there is no store", () => {
  for (const [args, stdin] of storeCommands) {
    test(`${args.join(" ")} names the store it looked for and creates nothing`, () => {
      const cwd = mkdtempSync(join(work, "cwd-"));
    const line = refusedLine(renderd(args, cwd, {}, stdin));
    expect(line).toBe(
      `renderd: no renderd store at ${join(cwd, "data", "renderd.db")} (DATA_DIR unset, default ./data): set DATA_DIR or --data-dir to the folder that holds renderd.db; \`renderd serve\` or \`renderd migrate\` starts a new one.`,
    );
    expect(readdirSync(cwd)).toEqual([]);
    });
  }

  test("DATA_DIR and --data-dir are named as given, the path shown absolute", () => {
    const cwd = mkdtempSync(join(work, "cwd-"));
    const missing = join(work, "nowhere");
    expect(refusedLine(renderd(["workspaces", "list"], cwd, { DATA_DIR: missing }))).toContain(`no renderd store at ${join(missing, "renderd.db")} (DATA_DIR=${missing})`);
    expect(refusedLine(renderd(["workspaces", "list", "--data-dir", "rel/dir"], cwd, { DATA_DIR: missing }))).toContain(
      `no renderd store at ${join(cwd, "rel", "dir", "renderd.db")} (--data-dir rel/dir)`,
    );
    expect(existsSync(missing)).toBe(false);
    expect(readdirSync(cwd)).toEqual([]);
  });

  test("migrate starts a new store; the other commands then use it", () => {
    const dataDir = join(work, "fresh");
    const migrated = renderd(["migrate", "--json"], work, { DATA_DIR: dataDir });
    expect(migrated.code).toBe(0);
    expect(JSON.parse(migrated.out).applied.length).toBeGreaterThan(0);
    expect(existsSync(join(dataDir, "renderd.db"))).toBe(true);
    const listed = renderd(["workspaces", "list"], work, { DATA_DIR: dataDir });
    expect(listed.code).toBe(0);
    expect(listed.out.trim()).toBe("no workspaces");
  });
});
