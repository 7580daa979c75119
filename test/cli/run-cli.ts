/** run-cli: `bun cli/main.ts …` run as its own process, the way an operator runs renderd, for the CLI's tests. */
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");

/** CliRun is what a command printed and its exit code. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** runCli runs `bun cli/main.ts ...args` with `env` over this process's environment (undefined unsets a variable),
 * feeding `stdin` when given. */
export function runCli(args: string[], env: Record<string, string | undefined>, stdin?: string): CliRun {
  const all: Record<string, string | undefined> = { ...process.env, ...env };
  const r = Bun.spawnSync([process.execPath, "cli/main.ts", ...args], {
    cwd: ROOT,
    env: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined)),
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

/** cliOutput answers a command's stdout, or throws naming its exit code and stderr. */
export function cliOutput(r: CliRun, args: string[]): string {
  if (r.code !== 0) throw new Error(`renderd ${args.join(" ")} exited ${r.code}: ${r.err}`);
  return r.out;
}
