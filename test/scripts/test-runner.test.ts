/** scripts/test.ts's report of failures, read from the JUnit report and the output bun writes for real failing test files. */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { failures, unhandledErrors } from "../../scripts/test";

const dir = mkdtempSync(join(tmpdir(), "renderd-test-runner-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The sample file has a test that passes (with nothing to check, so it cannot fail) beside one that fails: only the
// failed one is reported.
test("a failed test is named with its describe and file, with the message bun printed, quotes and brackets as written", async () => {
  writeFileSync(
    join(dir, "sample.test.ts"),
    `import { describe, expect, test } from "bun:test";
test("passes", () => {});
describe("group", () => {
  test("fails", () => expect(["<a & b>"]).toEqual(['"c"']));
});
`,
  );
  const report = join(dir, "report.xml");
  const child = Bun.spawn([process.execPath, "test", "--reporter=junit", `--reporter-outfile=${report}`, "./sample.test.ts"], { cwd: dir, stdout: "ignore", stderr: "ignore" });
  expect(await child.exited).toBe(1);
  const found = failures(await Bun.file(report).text());
  expect(found.map((f) => [f.file, f.name])).toEqual([["sample.test.ts", "group > fails"]]);
  expect(found[0]!.message).toContain("expect(received).toEqual(expected)");
  expect(found[0]!.message).toContain(`+   "<a & b>",`);
  expect(found[0]!.message).toContain(`-   ""c"",`);
});

// An error thrown by a timer the first file left behind reaches bun after that file ended: no test fails, the pass
// does, and only bun's output says why.
test("an error between tests is read from bun's output with its message and the file under whose heading bun printed it", async () => {
  writeFileSync(join(dir, "a-leaves-a-timer.test.ts"), `import { afterAll, test } from "bun:test";
afterAll(() => { setTimeout(() => { throw new Error("thrown after the file ended"); }, 5); });
test("passes", () => {});
`);
  // The second file waits while it loads, before its test runs: the timer fires between tests.
  writeFileSync(join(dir, "b-waits.test.ts"), `import { test } from "bun:test";
test("passes", () => {});
await Bun.sleep(200);
`);
  const report = join(dir, "between.xml");
  const child = Bun.spawn([process.execPath, "test", "--reporter=junit", `--reporter-outfile=${report}`, "./a-leaves-a-timer.test.ts", "./b-waits.test.ts"], { cwd: dir, stdout: "ignore", stderr: "pipe" });
  const [exitCode, output] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  expect(exitCode).toBe(1);
  expect(failures(await Bun.file(report).text())).toEqual([]);
  const found = unhandledErrors(output);
  expect(found).toHaveLength(1);
  expect(found[0]).toStartWith("while b-waits.test.ts ran:\n");
  expect(found[0]).toContain("error: thrown after the file ended");
  expect(found[0]).toContain("a-leaves-a-timer.test.ts:2:");
});
