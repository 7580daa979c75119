import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SCOPES } from "../../../src/auth/scopes";
import { ROOT, startServe, type ServeProcess } from "../../serve-process";

// The compiled binary under tmux at 80×24, against a running `dist/renderd serve`-equivalent build of this checkout.
const work = mkdtempSync(join(tmpdir(), "renderd-tui-e2e-"));
const binary = join(work, "renderd");
// A tmux server of our own, its socket in the test's folder: the test never touches the user's sessions, kill-server
// ends everything it started, and removing the folder removes the socket.
const TMUX = ["tmux", "-S", join(work, "tmux.sock")];
const SESSION = "tui";
let serve: ServeProcess;

function tmux(...args: string[]): string {
  const run = Bun.spawnSync([...TMUX, ...args], { stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${run.stderr.toString()}`);
  return run.stdout.toString();
}

async function screenWith(text: string | RegExp, ms = 15_000): Promise<string> {
  return screenWithIn(SESSION, text, ms);
}

async function screenWithIn(session: string, text: string | RegExp, ms = 15_000): Promise<string> {
  const end = Date.now() + ms;
  let screen = "";
  while (Date.now() < end) {
    screen = tmux("capture-pane", "-p", "-t", session);
    if (typeof text === "string" ? screen.includes(text) : text.test(screen)) return screen;
    await Bun.sleep(100);
  }
  throw new Error(`the screen never showed ${text}:\n${screen}`);
}

beforeAll(async () => {
  const build = Bun.spawnSync([process.execPath, "run", "scripts/build.ts", "cli/main.ts", binary], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(build.stderr.toString());
  // info: the Logs tab has lines to show (serve-process answers warn by default).
  serve = await startServe([binary], { LOG_LEVEL: "info" });
}, 120_000);

afterAll(async () => {
  Bun.spawnSync([...TMUX, "kill-server"], { stdout: "ignore", stderr: "ignore" });
  await serve?.stop();
  rmSync(work, { recursive: true, force: true });
});

test("renderd tui shows the render just made, and suspending from it makes the API refuse that workspace's renders", async () => {
  const key = await serve.makeKey(["render:create", "render:read"]);
  const made = await serve.call("/v1/renders?wait=30", key, { html: "<h1>from the e2e test</h1>" });
  expect(made.body.status).toBe("succeeded");

  // prom-client inside the compiled binary: the render is counted and the process metrics are there.
  const metrics = await (await fetch(`${serve.internalUrl}/metrics`)).text();
  expect(metrics).toContain('renderd_renders_total{status="succeeded",test="false"} 1');
  expect(metrics).toMatch(/^process_resident_memory_bytes [1-9]/m);

  const command = `env DATA_DIR=${serve.dataDir} INTERNAL_PORT=${serve.internalPort} NO_COLOR=1 ${binary} tui; echo "tui exited $?"; sleep 30`;
  tmux("new-session", "-d", "-s", SESSION, "-x", "80", "-y", "24", command);
  let screen = await screenWith("(1 finished)");
  expect(screen).toContain("serve running: pid");
  expect(screen).toContain("last hour: 1 succeeded, 0 failed, 0 cancelled");
  expect(screen).toMatch(/Pool: 0 busy, 1 idle, 0 recycling of 1/);
  // NO_COLOR: no colour escapes reach the terminal (inverse for the selected tab is not colour).
  expect(tmux("capture-pane", "-p", "-e", "-t", SESSION)).not.toMatch(/\x1b\[(3|9)[0-7]m/);

  tmux("send-keys", "-t", SESSION, "2");
  await screenWith("1 of 1 workspaces");
  tmux("send-keys", "-t", SESSION, "s");
  await screenWith("Suspend workspace default? y confirms");
  tmux("send-keys", "-t", SESSION, "y");
  // The message comes first; the row follows when the list is read again (CI once captured the screen in between).
  await screenWith("suspended default");
  await screenWith(/^default .* suspended/m);

  const refused = await serve.call("/v1/renders", key, { html: "<p>refused</p>" });
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe("FORBIDDEN");

  tmux("send-keys", "-t", SESSION, "q");
  screen = await screenWith("tui exited 0");
  // The alternate screen is gone: the shell's screen holds no trace of the console.
  expect(screen).not.toContain("Workspaces");
}, 120_000);

test("d then y drains the real serve: a render made meanwhile stays queued, the header says drained, u lets it print; Logs shows serve's lines; 200×50 uses the width", async () => {
  const key = await serve.makeKey(["render:create", "render:read"]);
  const command = `env DATA_DIR=${serve.dataDir} INTERNAL_PORT=${serve.internalPort} NO_COLOR=1 ${binary} tui; sleep 30`;
  tmux("new-session", "-d", "-s", "wide", "-x", "200", "-y", "50", command);
  const wide = (text: string | RegExp) => screenWithIn("wide", text);
  await wide("serve running: pid");
  tmux("send-keys", "-t", "wide", "2");
  await wide(/^default .* suspended/m);
  tmux("send-keys", "-t", "wide", "s");
  await wide("Restore workspace default?");
  tmux("send-keys", "-t", "wide", "y");
  await wide(/^default .* active/m);

  tmux("send-keys", "-t", "wide", "d");
  await wide("Drain serve?");
  tmux("send-keys", "-t", "wide", "y");
  await wide("serve drained (u resumes)");
  const held = await serve.call("/v1/renders", key, { html: "<p>held</p>" });
  expect(held.status).toBe(202);
  tmux("send-keys", "-t", "wide", "3");
  await wide(new RegExp(`${held.body.id}\\s+default\\s+queued`));
  await Bun.sleep(1500);
  expect((await serve.call(`/v1/renders/${held.body.id}`, key)).body.status).toBe("queued");

  tmux("send-keys", "-t", "wide", "u");
  await wide("serve running: pid");
  await wide(new RegExp(`${held.body.id}\\s+default\\s+succeeded`));
  tmux("send-keys", "-t", "wide", "7");
  const logs = await wide("queue released by the operator");
  expect(logs).toContain("queue held by the operator");
  expect(logs).toMatch(/info\s+render succeeded\s+renderId=/);

  // The lists use the width: a key's scopes run past column 100 at 200 columns.
  await serve.makeKey([...SCOPES]);
  tmux("send-keys", "-t", "wide", "5");
  const keys = await wide("audit:read");
  expect(Math.max(...keys.split("\n").map((l) => l.trimEnd().length))).toBeGreaterThan(100);
}, 120_000);
