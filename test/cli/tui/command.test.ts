import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../serve-process";

test("renderd tui without a terminal exits 2 with one line saying it needs one", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "renderd-tui-notty-"));
  try {
    const run = Bun.spawnSync([process.execPath, "cli/main.ts", "tui", "--data-dir", dataDir], { cwd: ROOT, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    expect(run.exitCode).toBe(2);
    expect(run.stderr.toString()).toBe("renderd: tui needs a terminal: run it in an interactive shell, not with piped input or output.\n");
    expect(run.stdout.toString()).toBe("");
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
