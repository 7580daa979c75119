import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { commandLine, isAlive, listProcesses, readProcess } from "../../src/render/browser";
import { RenderPool } from "../../src/render/pool";
import { processTempDir, sweepTempDirs } from "../../src/render/tempdir";

setDefaultTimeout(60_000);

// Each test has its own base, so that other renderd processes on this host (and their folders) are never involved.
const bases: string[] = [];
function newBase(): string {
  const base = join(mkdtempSync(join(tmpdir(), "renderd-tempdir-test-")), "renderd");
  bases.push(base);
  return base;
}

afterAll(() => {
  for (const base of bases) rmSync(resolve(base, ".."), { recursive: true, force: true });
});

/** A pid above the kernel's largest (pid_max is at most 2^22): no process has it. */
const NO_SUCH_PID = 2 ** 22 + 1;

describe("sweepTempDirs", () => {
  test("removes the folders of processes that no longer run, or whose pid a new process reused; keeps live ones and other names", () => {
    const base = newBase();
    const sleeper = Bun.spawn(["sleep", "60"]);
    try {
      const live = `${sleeper.pid}-${readProcess(sleeper.pid)!.startTicks}`;
      const reused = `${sleeper.pid}-1`;
      const dead = `${NO_SUCH_PID}-12345`;
      for (const name of [live, reused, dead, "notes"]) mkdirSync(join(base, name, "chromium-x"), { recursive: true });
      expect(sweepTempDirs(base).sort()).toEqual([dead, reused].sort());
      expect(readdirSync(base).sort()).toEqual([live, "notes"].sort());
    } finally {
      sleeper.kill(9);
    }
  });

  test("a base another user could have made first (group or world writable) is refused", () => {
    const base = newBase();
    mkdirSync(base, { mode: 0o777 });
    Bun.spawnSync(["chmod", "0777", base]);
    expect(() => processTempDir(base)).toThrow("is not a private folder of this user");
  });
});

describe("the pool's temporary folders (real Chromium)", () => {
  test("a renderd killed with SIGKILL leaves its folder; the next start sweeps it; a normal stop leaves nothing", async () => {
    const base = newBase();
    // A renderd stand-in: a process with a started pool, killed without any chance to clean up.
    const child = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const { RenderPool } = await import(${JSON.stringify(resolve("src/render/pool.ts"))});
         const pool = new RenderPool({ size: 1, chromiumPath: "/usr/bin/chromium", timeoutMs: 10000, tempBase: ${JSON.stringify(base)} });
         await pool.start();
         console.log("ready");
         setInterval(() => {}, 1000);`,
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
    const reader = child.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("ready");
    const leftover = `${child.pid}-${readProcess(child.pid)!.startTicks}`;
    // playwright's profile and Chromium's config folder are inside the process's folder, not loose in /tmp.
    const inside = readdirSync(join(base, leftover));
    expect(inside.some((name) => name.startsWith("playwright_chromiumdev_profile-"))).toBe(true);
    expect(inside.some((name) => name.startsWith("chromium-"))).toBe(true);
    child.kill(9);
    await child.exited;
    expect(existsSync(join(base, leftover))).toBe(true);

    const pool = new RenderPool({ size: 1, chromiumPath: "/usr/bin/chromium", timeoutMs: 10_000, tempBase: base });
    await pool.start();
    const mine = `${process.pid}-${readProcess(process.pid)!.startTicks}`;
    try {
      expect(readdirSync(base)).toEqual([mine]);
      const holders = listProcesses().filter((p) => isAlive(p.pid) && commandLine(p.pid).some((arg) => arg.includes(join(base, leftover))));
      expect(holders).toEqual([]);
      expect((await pool.render({ html: "<p>swept</p>" })).pages).toBe(1);
    } finally {
      await pool.stop();
    }
    // stop() waits for the browser to exit, playwright removes its profile, and the pool the emptied folder.
    expect(readdirSync(base)).toEqual([]);
  });
});
