import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { Actions } from "../../../cli/tui/actions";
import { App } from "../../../cli/tui/app";
import { storeSource } from "../../../cli/tui/source";
import { sha256Hex } from "../../../src/lib/hash";
import { CLI_ACTOR } from "../../../src/auth/actor";
import { createWorkspace } from "../../../src/modules/workspaces/service";
import { frameWith as framed, press as typed } from "./frames";
import { seedStore, type Seeded } from "./seed";

// Nothing listens on port 1: the console must say serve is not running and still show the store.
const NO_SERVE = "127.0.0.1:1";
const ENTER = "\r";
const DOWN = "\x1b[B";
const BACKSPACE = "\x7f";

let s: Seeded;
let ui: ReturnType<typeof render>;
beforeEach(async () => {
  s = await seedStore();
});
afterEach(async () => {
  ui?.unmount();
  await s.close();
});

async function open(tab: number, size = { columns: 80, rows: 24 }) {
  ui = render(<App source={storeSource(s.store, s.clock, NO_SERVE)} actions={new Actions(s.store, s.clock, s.config)} refreshMs={60_000} colour={false} initialTab={tab} size={size} />);
  await frameWith("showing the store");
  // Ink starts reading stdin in an effect after the first frames; keys written before then are lost.
  await Bun.sleep(150);
}

const frameWith = (text: Parameters<typeof framed>[1]) => framed(() => ui, text);
const press = (...keys: string[]) => typed(ui, keys);

const audit = (action: string) => s.store.all<{ actor_type: string; actor_id: string }>("SELECT actor_type, actor_id FROM audit_events WHERE action = $action", { action });

describe("Overview", () => {
  test("shows throughput, the queue, p50/p95 of the last 5 minutes, webhooks and recent failures; says serve is not running", async () => {
    await open(0);
    const frame = await frameWith("Recent failures");
    expect(frame).toContain("serve is not running (nothing answers on 127.0.0.1:1)");
    expect(frame).toContain("Renders per minute, last hour (4 finished)");
    const spark = frame.split("\n").find((l) => /^[▁▂▃▄▅▆▇█]{60}$/.test(l));
    expect(spark).toBeDefined();
    expect(spark).toContain("█");
    expect(frame).toContain("Queue: queued 1  processing 1");
    expect(frame).toContain("last hour: 3 succeeded, 1 failed, 0 cancelled");
    expect(frame).toContain("queue wait p50 2.00s p95 2.00s   render p50 1.00s p95 3.00s");
    expect(frame).toContain("Pool: - (serve is not running)");
    expect(frame).toContain("Webhooks: backlog 2, 1 failing endpoint");
    expect(frame).toMatch(new RegExp(`RENDER_TIMEOUT\\s+globex\\s+${s.failedId}`));
    for (const line of frame.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
  });

  test("tabs switch with their number keys and Tab; ? shows the keys", async () => {
    await open(0);
    await frameWith("Recent failures");
    await press("3");
    await frameWith("RENDER ");
    await press("\t");
    await frameWith("hooks.acme.test");
    await press("\t");
    await frameWith("API keys");
    await press("\x1b[Z");
    await frameWith("hooks.acme.test");
    await press("1");
    await frameWith("Recent failures");
    await press("?");
    expect(await frameWith("Keys on Overview now")).toContain("quit (Ctrl-C too)");
  });
});

describe("Workspaces", () => {
  test("lists every workspace with allowances, documents this month, active renders, storage and state", async () => {
    await open(1);
    const frame = await frameWith("2 of 2 workspaces");
    expect(frame).toMatch(/acme\s+1\/10\s+60\s+3\/∞\s+0 B\s+active/);
    expect(frame).toMatch(/globex\s+1\/10\s+60\s+1\/∞\s+0 B\s+active/);
  });

  test("s then y suspends the first row (selected when the tab opens), audited as system/cli; again restores it", async () => {
    await open(1);
    await frameWith("2 of 2 workspaces");
    await press("s");
    await frameWith("Suspend workspace acme? y confirms");
    await press("y");
    await frameWith("suspended acme");
    expect((await s.store.get<{ suspended: number }>("SELECT suspended FROM workspaces WHERE id = $id", { id: s.ws.acme }))!.suspended).toBe(1);
    expect(await audit("workspace.suspended")).toEqual([{ actor_type: "system", actor_id: "cli" }]);
    // The message comes first; the row follows when the list is read again (on PostgreSQL a load may be in flight).
    await frameWith(/acme .* suspended/);
    await press("s", "y");
    await frameWith("restored acme");
    expect(await audit("workspace.restored")).toHaveLength(1);
  });

  test("any key but y leaves the workspace as it was", async () => {
    await open(1);
    await frameWith("2 of 2 workspaces");
    await press(DOWN, "s");
    await frameWith("Suspend workspace globex?");
    await press("n");
    expect((await s.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM workspaces WHERE suspended = 1"))!.n).toBe(0);
  });

  test("/ searches by name or slug", async () => {
    await open(1);
    await frameWith("2 of 2 workspaces");
    await press("/", "g", "l", "o", ENTER);
    const frame = await frameWith("1 of 2 workspaces");
    expect(frame).toContain("globex");
    expect(frame).not.toMatch(/^acme/m);
  });

  test("e edits the allowances within the spec's bounds: 0 active renders is refused naming the field, 5 is saved", async () => {
    await open(1);
    await frameWith("2 of 2 workspaces");
    await press("e");
    await frameWith("Allowances of acme");
    await press(BACKSPACE, BACKSPACE, "0", ENTER);
    expect(await frameWith("maxActiveRenders")).toContain("must be");
    await press(BACKSPACE, "5", DOWN, BACKSPACE, BACKSPACE, "9", ENTER);
    await frameWith("saved the allowances of acme");
    const row = await s.store.get<{ max_active_renders: number; renders_per_minute: number; suspended: number }>("SELECT * FROM workspaces WHERE id = $id", { id: s.ws.acme })!;
    expect(row).toMatchObject({ max_active_renders: 5, renders_per_minute: 9, suspended: 0 });
    expect(await audit("workspace.allowances_updated")).toEqual([{ actor_type: "system", actor_id: "cli" }]);
  });

  test("k creates an API key and shows its secret once", async () => {
    await open(1);
    await frameWith("2 of 2 workspaces");
    await press("k", "o", "p", "s", ENTER);
    const frame = await frameWith("shown once");
    const secret = /rd_[A-Za-z0-9]+/.exec(frame)![0];
    const key = await s.store.get<{ name: string; workspace_id: string }>("SELECT name, workspace_id FROM api_keys WHERE secret_hash = $h", { h: sha256Hex(secret) });
    expect(key).toEqual({ name: "ops", workspace_id: s.ws.acme });
    await press("x");
    await Bun.sleep(50);
    expect(ui.lastFrame()).not.toContain(secret);
  });
});

test("fits 80×24 with many workspaces, the allowances form open included", async () => {
  for (let i = 0; i < 30; i++) await s.store.tx((tx) => createWorkspace(tx, s.clock, { actor: CLI_ACTOR, requestId: "req_seed" }, { name: `Tenant ${i} with a rather long name` }));
  await open(1);
  const list = await frameWith("32 of 32 workspaces");
  await press("e");
  const form = await frameWith("Allowances of acme");
  for (const frame of [list, form]) {
    expect(frame.split("\n").length).toBeLessThanOrEqual(24);
    for (const line of frame.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
  }
});

describe("Renders", () => {
  test("tails the newest renders; f filters by status; c then y cancels through the cancel service", async () => {
    await open(2);
    let frame = await frameWith(s.queuedId);
    expect(frame).toContain(s.failedId);
    expect(frame).toMatch(new RegExp(`${s.failedId}\\s+globex\\s+failed\\s+\\S+\\s+RENDER_TIMEOUT`));
    await press("f");
    // The header changes at once; the rows when the filtered list has been read.
    frame = await frameWith((f) => f.includes("Status: queued") && !f.includes(s.failedId));
    expect(frame).toContain(s.queuedId);
    expect(frame).not.toContain(s.failedId);
    await press("c");
    await frameWith(`Cancel ${s.queuedId} (queued)?`);
    await press("y");
    await frameWith(`cancelled ${s.queuedId}`);
    expect((await s.store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id: s.queuedId }))!.status).toBe("cancelled");
  });

  test("w filters by workspace slug", async () => {
    await open(2);
    await frameWith(s.queuedId);
    await press("w", "g", "l", "o", "b", "e", "x", ENTER);
    const frame = await frameWith((f) => f.includes("Workspace: globex") && !f.includes(s.queuedId));
    expect(frame).toContain(s.processingId);
    expect(frame).not.toContain(s.queuedId);
  });
});

describe("Webhooks", () => {
  test("lists endpoints with failing deliveries and their next attempt", async () => {
    await open(3);
    const frame = await frameWith("hooks.acme.test");
    expect(frame).toMatch(/acme\s+https:\/\/hooks\.acme\.test\/r…\s+2\s+1\s+10:05:00\s+The endpoint ans…/);
    await press(ENTER);
    const detail = await frameWith("Webhook endpoint");
    expect(detail).toContain("https://hooks.acme.test/renderd");
    expect(detail).toMatch(/Last error\s+The endpoint answered HTTP 503\./);
  });
});
