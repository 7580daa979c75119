import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ALLOCATOR_SETTINGS } from "../../cli/allocator";
import { ROOT, startServe, type ServeProcess } from "../serve-process";

// `bun cli/main.ts serve`: a source run (the compiled binary's arguments are checked in test/binary.test.ts).
const SERVE = [process.execPath, `${ROOT}/cli/main.ts`];

let serve: ServeProcess | undefined;
afterEach(async () => {
  await serve?.stop();
  serve = undefined;
});

/** processOf answers the environment and the arguments a process runs with now, from /proc. */
function processOf(pid: number): { env: Map<string, string>; argv: string[] } {
  const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return {
    env: new Map(env.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)])),
    argv: readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean),
  };
}

test("serve runs under the allocator's settings: the same process, started again with them and its own arguments", async () => {
  serve = await startServe(SERVE);
  const { env, argv } = processOf(serve.proc.pid);
  for (const [name, value] of Object.entries(ALLOCATOR_SETTINGS)) expect(env.get(name)).toBe(value);
  expect(argv.slice(1, 4)).toEqual([`${ROOT}/cli/main.ts`, "serve", "--port"]);
  expect(env.get("DATA_DIR")).toBe(serve.dataDir);
  expect((await fetch(`${serve.url}/health`)).status).toBe(200);
});

test("a setting the operator made is kept, and so are the others docs/operations.md offers", async () => {
  const operator = { MIMALLOC_PURGE_HOLES_MIN_INTERVAL: "100", MIMALLOC_PURGE_DELAY: "-1", BUN_JSC_useFTLJIT: "0" };
  serve = await startServe(SERVE, operator);
  const { env } = processOf(serve.proc.pid);
  for (const [name, value] of Object.entries(operator)) expect(env.get(name)).toBe(value);
  expect((await fetch(`${serve.url}/health`)).status).toBe(200);
});
