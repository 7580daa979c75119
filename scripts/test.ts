/**
 * scripts/test: the project's test command (`npm test`, what CI runs). The whole suite on SQLite, then the API suite
 * and the TUI's screens again on PostgreSQL (test/backends.ts starts the servers). Both passes run whatever the first
 * answers, and at the end the failures of both are printed again with their messages: a CI log is read from its end,
 * and bun's own summary names a failed test without saying what failed. An error bun caught between tests fails the
 * pass without failing a test, so it is in no report: it is read from bun's output and printed again too, with the
 * file that was running.
 *
 * `bun scripts/test.ts postgres` runs the PostgreSQL pass alone (`npm run test:postgres`).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const RESULTS = join(ROOT, ".tmp", "test-results");
const PASSES = [
  { name: "sqlite", env: {}, paths: [] as string[] },
  { name: "postgres", env: { RENDERD_TEST_STORE: "postgres" }, paths: ["test/api", "test/cli/tui/screens.test.tsx", "test/cli/tui/cockpit.test.tsx"] },
];

/** Failure is one failed test as bun's JUnit report names it, with the message bun printed above its `(fail)` line. */
type Failure = { file: string; name: string; message: string };

const ENTITIES: Record<string, string> = { quot: '"', amp: "&", lt: "<", gt: ">", apos: "'" };
const unescapeXml = (s: string) => s.replace(/&(#(\d+)|[a-z]+);/g, (m, name: string, code?: string) => (code ? String.fromCharCode(Number(code)) : (ENTITIES[name] ?? m)));
const attribute = (tag: string, name: string) => unescapeXml(new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1] ?? "");

/** failures reads the failed tests of a JUnit report written by `bun test --reporter=junit`. */
export function failures(junit: string): Failure[] {
  const found: Failure[] = [];
  for (const m of junit.matchAll(/<testcase\b([^>]*)>\s*<failure\b[^>]*>([\s\S]*?)<\/failure>/g)) {
    const [tag, body] = [m[1]!, m[2]!];
    const suite = attribute(tag, "classname");
    found.push({ file: attribute(tag, "file"), name: suite ? `${suite} > ${attribute(tag, "name")}` : attribute(tag, "name"), message: unescapeXml(body).trim() });
  }
  return found;
}

const BETWEEN_TESTS = "# Unhandled error between tests";
const RULE = "-------------------------------";

/** unhandledErrors reads the errors bun printed between tests from its output, each with the file whose heading came last. */
export function unhandledErrors(output: string): string[] {
  const found: string[] = [];
  let file = "";
  const lines = output.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (/^\S.*\.test\.tsx?:$/.test(lines[i]!)) file = lines[i]!.slice(0, -1);
    if (lines[i] !== BETWEEN_TESTS || lines[i + 1] !== RULE) continue;
    const end = lines.indexOf(RULE, i + 2);
    const body = lines.slice(i + 2, end === -1 ? undefined : end);
    found.push(`while ${file || "the first file loaded"} ran:\n${body.join("\n").trim()}`);
    if (end !== -1) i = end;
  }
  return found;
}

/** passThrough copies a child's stream to ours as it comes and answers all of it once the stream ends. */
async function passThrough(stream: ReadableStream<Uint8Array>, to: NodeJS.WriteStream): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    to.write(read.value);
    text += decoder.decode(read.value, { stream: true });
  }
  return text + decoder.decode();
}

async function run(pass: (typeof PASSES)[number]): Promise<{ exitCode: number; failed: Failure[]; between: string[] }> {
  const report = join(RESULTS, `${pass.name}.xml`);
  const child = Bun.spawn([process.execPath, "test", "--timeout", "60000", "--reporter=junit", `--reporter-outfile=${report}`, ...pass.paths], {
    cwd: ROOT,
    env: { ...process.env, ...pass.env },
    stdio: ["inherit", "inherit", "pipe"],
  });
  const [exitCode, output] = await Promise.all([child.exited, passThrough(child.stderr, process.stderr)]);
  const file = Bun.file(report);
  return { exitCode, failed: (await file.exists()) ? failures(await file.text()) : [], between: unhandledErrors(output) };
}

if (import.meta.main) {
  mkdirSync(RESULTS, { recursive: true });
  const only = process.argv[2];
  const passes = only ? PASSES.filter((p) => p.name === only) : PASSES;
  if (passes.length === 0) throw new Error(`no pass named ${only}: ${PASSES.map((p) => p.name).join(", ")}`);
  const results = [];
  for (const pass of passes) results.push({ pass, ...(await run(pass)) });
  const failedPasses = results.filter((r) => r.exitCode !== 0);
  // Long messages (a whole TUI frame) are cut: the full text is above, where the test ran.
  const cut = (text: string) => text.split("\n").slice(0, 40).join("\n");
  for (const { pass, exitCode, failed, between } of failedPasses) {
    console.error(`\n=== ${pass.name} pass: exit ${exitCode}, ${failed.length} failed test(s), ${between.length} error(s) between tests`);
    for (const f of failed) console.error(`\n(fail) ${f.file} > ${f.name}\n${cut(f.message)}`);
    for (const e of between) console.error(`\n(error between tests) ${cut(e)}`);
  }
  for (const r of results) console.error(`${r.pass.name} pass: ${r.exitCode === 0 ? "passed" : `FAILED (exit ${r.exitCode})`}`);
  process.exit(failedPasses.length ? 1 : 0);
}
