/** browser: one supervised Chromium process — launch, find its pid, ask whether it answers, kill its process group. */
import { accessSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type CDPSession } from "playwright-core";
import { within } from "./timeout";

/** ProcessInfo is one line of /proc: enough to walk a process tree and weigh it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** The command name (/proc/<pid>/comm, at most 15 characters). */
  name: string;
  /** One letter from /proc/<pid>/stat: R, S, D, Z (zombie), T (stopped)… */
  state: string;
  /** When the process started, in clock ticks after boot: with the pid, it names one process (pids are reused). */
  startTicks: number;
}

/** readProcess reads /proc/<pid>/stat, or null when the process is gone. */
export function readProcess(pid: number): ProcessInfo | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name sits in parentheses and may itself hold spaces or parentheses: split after the last ")".
  const close = stat.lastIndexOf(")");
  const fields = stat.slice(close + 2).split(" ");
  const [state, ppid, pgid] = fields;
  return { pid, name: stat.slice(stat.indexOf("(") + 1, close), state, ppid: Number(ppid), pgid: Number(pgid), startTicks: Number(fields[19]) };
}

/** listProcesses reads every process of /proc; processes that end while it reads are left out. */
export function listProcesses(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProcess(Number(name));
    if (info) out.push(info);
  }
  return out;
}

/**
 * commandLine answers a process's arguments, or [] when it is gone (or a zombie, whose cmdline is empty). Chromium's
 * child processes rewrite their title, leaving every switch in one space-joined string: match switches with hasSwitch.
 */
export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((arg) => arg !== "");
  } catch {
    return [];
  }
}

/** hasSwitch answers whether a command line holds `name` (`--type=renderer`) as a whole word, however it was joined. */
export function hasSwitch(args: string[], name: string): boolean {
  return args.some((arg) => arg === name || arg.split(/\s+/).includes(name));
}

/** residentBytes answers VmRSS of a process in bytes (0 when gone). */
export function residentBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** proportionalBytes answers the Pss of a process in bytes (its private pages plus its share of shared ones): unlike VmRSS it sums
 * over processes without counting Chromium's shared binary once per process. Falls back to VmRSS without smaps_rollup. */
export function proportionalBytes(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return match ? Number(match[1]) * 1024 : residentBytes(pid);
  } catch {
    return residentBytes(pid);
  }
}

/** isAlive answers whether a process exists and is not a zombie (an exited child nobody has reaped yet). */
export function isAlive(pid: number): boolean {
  const info = readProcess(pid);
  return info !== null && info.state !== "Z" && info.state !== "X";
}

/** descendants answers the processes below `root` by parent links, from one listing of /proc. */
export function descendants(root: number, processes: ProcessInfo[] = listProcesses()): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const p of processes) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const out: ProcessInfo[] = [];
  const stack = [root];
  while (stack.length) {
    for (const child of children.get(stack.pop()!) ?? []) {
      out.push(child);
      stack.push(child.pid);
    }
  }
  return out;
}

// V8's own growing factor for a heap of 1 GiB or more: 4.0, as (1 + percent / 100).
const HEAP_GROWING_PERCENT = 300;

/** ChromiumArgsOptions are what varies in renderd's Chromium switches. */
export interface ChromiumArgsOptions {
  /** Bounds V8's old space in every renderer (`--js-flags=--max-old-space-size`); RENDER_MAX_HEAP_BYTES. */
  maxHeapBytes?: number;
  /** Chromium refuses to start as root unless its sandbox is off. */
  asRoot?: boolean;
}

/** chromiumArgs answers the switches renderd starts Chromium with (playwright adds --headless, the pipe and its defaults). */
export function chromiumArgs(options: ChromiumArgsOptions = {}): string[] {
  const args = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    // No host name (nor IP literal: Chromium passes those through the same rules) resolves inside the browser, so
    // `<link rel=dns-prefetch|preconnect>` — which open sockets without a request the route handler could see —
    // reach nothing. The asset origin is answered by interception before any resolution.
    "--host-resolver-rules=MAP * ~NOTFOUND",
  ];
  if (options.asRoot) args.push("--no-sandbox");
  if (options.maxHeapBytes !== undefined) {
    const mib = Math.max(16, Math.floor(options.maxHeapBytes / (1024 * 1024)));
    // V8 lets a heap grow by up to 4× its live size between full collections only when its bound is 1 GiB or more;
    // below, the factor falls towards 1.3 at 128 MiB (src/heap/heap-controller.h, BaseControllerTrait), so at 512 MiB a
    // 22-page report's renderer collected its DOM so often it spent ~100 ms more CPU than without the bound
    // (docs/pool.md "Limits"). The growing percent restores the factor; the bound stays.
    args.push(`--js-flags=--max-old-space-size=${mib} --heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  }
  // Never add --disable-crashpad-for-testing: with Chromium 156 it also silently turns off Fetch interception
  // (the route handler is never called). The crash handlers it would remove are found through XDG_CONFIG_HOME instead.
  return args;
}

/** LaunchOptions say which Chromium to start and how. */
export interface LaunchOptions extends ChromiumArgsOptions {
  executablePath: string;
  /** The folder every temporary file of the browser goes in (tempdir.ts processTempDir). */
  tempDir: string;
  /** Milliseconds to wait for Chromium to answer on its pipe. */
  launchTimeoutMs?: number;
}

/** launchOptions answers how renderd starts Chromium (the pool, and `renderd doctor` proving it starts): the executable,
 * the heap bound, the process's temporary folder (tempdir.ts), and no sandbox when running as root. */
export function launchOptions(options: { chromiumPath: string; maxHeapBytes?: number }, tempDir: string): LaunchOptions {
  return { executablePath: options.chromiumPath, tempDir, maxHeapBytes: options.maxHeapBytes, asRoot: process.getuid?.() === 0 };
}

/**
 * BrowserProcess is one running Chromium and what is needed to end it for certain: its pid (the leader of its
 * own process group, since playwright spawns it detached) and the private folder its crash handlers name.
 */
export class BrowserProcess {
  private cdp: CDPSession | null = null;

  private constructor(
    readonly browser: Browser,
    /** pid of the browser process; also its process group id. */
    readonly pid: number,
    /** The switch that marks this browser's command line (see launch). */
    private readonly marker: string,
    /** Private XDG_CONFIG_HOME: Chromium's crash handlers (setsid, outside the group) carry it in their arguments. */
    readonly configDir: string,
    readonly startedAt: Date,
  ) {}

  /** launch starts Chromium with renderd's switches and finds its pid in /proc. */
  static async launch(options: LaunchOptions, startedAt: Date): Promise<BrowserProcess> {
    // Checked first: playwright, asked to spawn a missing file under Bun, leaves its temporary profile behind.
    try {
      accessSync(options.executablePath, constants.X_OK);
    } catch {
      throw new Error(`Chromium at ${options.executablePath} did not start: no executable file there (CHROMIUM_PATH).`);
    }
    const configDir = mkdtempSync(join(options.tempDir, "chromium-"));
    // A switch Chromium ignores but /proc shows: how the browser process is told apart from any other Chromium.
    const marker = `--renderd-browser=${configDir}`;
    let browser: Browser;
    try {
      browser = await withTmpdir(options.tempDir, () => chromium.launch({
        executablePath: options.executablePath,
        args: [...chromiumArgs(options), marker],
        // Chromium's own temporary files (shared memory, with --disable-dev-shm-usage) go in the same folder.
        env: { ...process.env, XDG_CONFIG_HOME: configDir, TMPDIR: options.tempDir },
        timeout: options.launchTimeoutMs ?? 30_000,
        // The pool's owner decides when the browser ends (graceful stop drains renders first); playwright still
        // kills it when this process exits.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      }));
    } catch (e) {
      rmSync(configDir, { recursive: true, force: true });
      throw new Error(`Chromium at ${options.executablePath} did not start: ${(e as Error).message.split("\n")[0]}`);
    }
    const pid = findBrowserPid(marker);
    if (pid === null) {
      await browser.close().catch(() => {});
      rmSync(configDir, { recursive: true, force: true });
      throw new Error(`Chromium at ${options.executablePath} started but its process was not found in /proc.`);
    }
    return new BrowserProcess(browser, pid, marker, configDir, startedAt);
  }

  /** connected answers whether playwright still speaks to the browser. */
  get connected(): boolean {
    return this.browser.isConnected();
  }

  /** ping asks the browser for its version over CDP; false when it does not answer within `timeoutMs` (a hung browser). */
  async ping(timeoutMs: number): Promise<boolean> {
    if (!this.connected || !isAlive(this.pid)) return false;
    const answer = (async () => {
      this.cdp ??= await this.browser.newBrowserCDPSession();
      await this.cdp.send("Browser.getVersion");
      return true;
    })().catch(() => false);
    return (await within(answer, timeoutMs)) ?? false;
  }

  /**
   * groupIsOurs answers whether the pid still names this browser (or nothing): once the browser has exited and been
   * reaped its pid may be reused, and a stranger's process group must never be signalled.
   */
  private groupIsOurs(): boolean {
    const leader = readProcess(this.pid);
    if (!leader || leader.state === "Z" || leader.state === "X") return true;
    return hasSwitch(commandLine(this.pid), this.marker);
  }

  /** processes answers every live process of this browser: its process group, descendants, and its crash handlers. */
  processes(): ProcessInfo[] {
    const all = listProcesses();
    const found = new Map<number, ProcessInfo>();
    if (this.groupIsOurs()) {
      for (const p of all) if (p.pid === this.pid || p.pgid === this.pid) found.set(p.pid, p);
      for (const p of descendants(this.pid, all)) found.set(p.pid, p);
    }
    for (const p of all) {
      if (found.has(p.pid) || !p.name.startsWith("chrome_crashpad")) continue;
      if (commandLine(p.pid).some((arg) => arg.startsWith("--database=") && arg.includes(this.configDir))) found.set(p.pid, p);
    }
    return [...found.values()].filter((p) => p.state !== "Z" && p.state !== "X");
  }

  /** rssBytes sums VmRSS over processes(); Chromium's shared pages count once per process, so it overstates (see pssBytes). */
  rssBytes(): number {
    return this.processes().reduce((sum, p) => sum + residentBytes(p.pid), 0);
  }

  /** pssBytes sums Pss over processes(): the memory the browser really holds. */
  pssBytes(): number {
    return this.processes().reduce((sum, p) => sum + proportionalBytes(p.pid), 0);
  }

  /** rendererPssBytes sums Pss over the renderer processes only: the part that grows with documents. */
  rendererPssBytes(): number {
    let sum = 0;
    for (const p of this.processes()) {
      const args = commandLine(p.pid);
      if (hasSwitch(args, "--type=renderer") && !hasSwitch(args, "--top-chrome-webui")) sum += proportionalBytes(p.pid);
    }
    return sum;
  }

  /** kill ends the browser at once: SIGKILL to its process group, then to any straggler found in /proc. */
  kill(): void {
    const stragglers = this.processes();
    if (this.groupIsOurs()) {
      try {
        process.kill(-this.pid, "SIGKILL");
      } catch {
        // the group is already gone
      }
    }
    for (const p of stragglers) {
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  /** close asks the browser to close, kills it when it does not within `timeoutMs`, waits until none of its processes remain, and removes its folder. */
  async close(timeoutMs: number): Promise<void> {
    const closed = await within(
      this.browser.close().then(
        () => true,
        () => false,
      ),
      timeoutMs,
    );
    if (!closed) this.kill();
    await this.waitGone(timeoutMs);
    rmSync(this.configDir, { recursive: true, force: true });
  }

  /**
   * waitGone waits until processes() is empty: `timeoutMs` for them to end by themselves, then SIGKILL, repeated
   * every 500 ms for up to 10 s more (a process in uninterruptible IO dies only when its IO ends).
   */
  async waitGone(timeoutMs: number): Promise<void> {
    const killAt = performance.now() + timeoutMs;
    const giveUpAt = killAt + 10_000;
    let lastKill = 0;
    while (this.processes().length > 0) {
      const now = performance.now();
      if (now > giveUpAt) return;
      if (now > killAt && now - lastKill >= 500) {
        this.kill();
        lastKill = now;
      }
      await Bun.sleep(20);
    }
  }
}

let launching: Promise<unknown> = Promise.resolve();

/**
 * withTmpdir runs `launch` with this process's TMPDIR set to `dir`, one launch at a time: playwright's launch() makes
 * the browser's profile and artifacts folders with os.tmpdir() and has no option for them (userDataDir is refused),
 * and a profile left in /tmp by a killed renderd is what issue 16 found. Bun's os.tmpdir() reads TMPDIR on each call.
 */
function withTmpdir<T>(dir: string, launch: () => Promise<T>): Promise<T> {
  const run = launching.then(async () => {
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    try {
      return await launch();
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
  });
  launching = run.catch(() => {});
  return run;
}

/** findBrowserPid answers the child of this process whose arguments carry `marker` (Debian's wrapper execs, keeping the pid). */
function findBrowserPid(marker: string): number | null {
  for (const p of descendants(process.pid)) {
    const args = commandLine(p.pid);
    if (hasSwitch(args, marker) && !args.some((arg) => /(^|\s)--type=/.test(arg))) return p.pid;
  }
  return null;
}
