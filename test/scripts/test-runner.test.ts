/** scripts/test.ts's report of failures, read from a JUnit report bun writes for a real failing test file. */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { failures } from "../../scripts/test";

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
