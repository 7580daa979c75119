/** cockpit: the TUI's lists, details, keys and drain at 80×24 and 200×50 (ink-testing-library), on a seeded store and a
 * real internal port (internalHandler) whose log lines and queue hold the console follows and asks for. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { Actions } from "../../../cli/tui/actions";
import { App, TABS } from "../../../cli/tui/app";
import { storeSource } from "../../../cli/tui/source";
import { CLI_ACTOR } from "../../../src/auth/actor";
import { LogTail } from "../../../src/lib/log-tail";
import { createLogger } from "../../../src/logger";
import { Metrics } from "../../../src/metrics/metrics";
import { createApiKey } from "../../../src/modules/api-keys/service";
import { createWorkspace } from "../../../src/modules/workspaces/service";
import { internalHandler, type LiveState } from "../../../src/modules/health/internal";
import { claimRender, endRender } from "../../../src/queue/lifecycle";
import { newId } from "../../../src/lib/ids";
import { frameWith as framed, press as typed } from "./frames";
import { seedStore, type Seeded } from "./seed";

const ENTER = "\r";
const ESC = "\x1b";
const SMALL = { columns: 80, rows: 24 };
const LARGE = { columns: 200, rows: 50 };
const LONG_MESSAGE = "The page did not finish loading within RENDER_TIMEOUT_MS (30000 ms): a script on the page kept it busy; shorten the document or raise the limit.";

// A real internal port: its log lines come from a real logger, its drain sets what /internal/state answers.
const tail = new LogTail();
const log = createLogger("debug", { write() {} }, tail);
let paused = false;
let printing = 1;
const live = (): LiveState => ({
  version: "0.0.0",
  pid: 4242,
  startedAt: "2026-03-10T09:00:00.000Z",
  draining: false,
  paused,
  pool: { state: "ready", size: 1, busy: printing, idle: 1 - printing, recycling: 0, waiting: 0, browserRestarts: 0, rssBytes: 1 },
  inFlight: printing ? [{ renderId: "rnd_0VbdbMUF001pEsi9ClbN4G", workspaceId: "ws_0VbdbLTt001TN4fYrOqG2o", startedAt: "2026-03-10T09:59:59.000Z" }] : [],
  storage: { dataDir: "/data", freeBytes: 10 * 2 ** 30, minFreeBytes: 2 ** 28, refusing: null, lastError: null },
});
const internal = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: internalHandler({ metrics: new Metrics(), state: live, logs: tail, pause: (on) => void (paused = on) }) });
const SERVE = `127.0.0.1:${internal.port}`;
afterAll(() => {
  tail.close();
  internal.stop(true);
});

let s: Seeded;
let ui: ReturnType<typeof render>;
let longFailureId: string;
beforeEach(async () => {
  s = await seedStore();
  paused = false;
  printing = 1;
  longFailureId = newId("rnd");
  await s.store.tx(async (tx) => {
    await tx.run(
      "INSERT INTO renders (id, workspace_id, status, test, source, filename, job, created_at) VALUES ($id, $ws, 'queued', 0, 'html', 'long.pdf', '{}', $now)",
      { id: longFailureId, ws: s.ws.globex, now: "2026-03-10T09:59:00.000Z" },
    );
    await claimRender(tx, s.clock, longFailureId, { owner: "prc_seed", expiresAt: "2999-01-01T00:00:00.000Z" });
    await endRender(tx, s.clock, longFailureId, ["processing"], { status: "failed", code: "RENDER_TIMEOUT", message: LONG_MESSAGE });
  });
});
afterEach(async () => {
  ui?.unmount();
  await s.close();
});

async function open(tab: number, size = SMALL, address = "127.0.0.1:1") {
  ui = render(<App source={storeSource(s.store, s.clock, address)} actions={new Actions(s.store, s.clock, s.config)} refreshMs={100} colour={false} initialTab={tab} size={size} />);
  await frameWith(TABS[tab] === "Overview" ? "Recent failures" : "Filter:");
  // Ink starts reading stdin in an effect after the first frames; keys written before then are lost.
  await Bun.sleep(150);
}

const frameWith = (text: string | RegExp) => framed(() => ui, text);
const press = (...keys: string[]) => typed(ui, keys);

/** fits checks that a frame is within the terminal: no more lines, no line longer (Ink would wrap or the terminal cut it). */
function fits(frame: string, size: { columns: number; rows: number }) {
  const lines = frame.split("\n");
  expect(lines.length).toBeLessThanOrEqual(size.rows);
  for (const line of lines) expect({ line, width: line.length <= size.columns }).toEqual({ line, width: true });
}

describe("every tab at 80×24 and 200×50", () => {
  for (const size of [SMALL, LARGE])
    test(`${size.columns}×${size.rows}: each tab and its ? help fit; help names the tab's keys and the global ones, none cut`, async () => {
      await open(0, size, SERVE);
      for (const [i, name] of TABS.entries()) {
        await press(String(i + 1));
        const frame = await frameWith(name === "Overview" ? "Recent failures" : "Filter:");
        fits(frame, size);
        // The footer shows the keys at all times.
        expect(frame.split("\n").at(-1)).toMatch(/\? keys {2}q quit$/);
        await press("?");
        const help = await frameWith(`Keys on ${name} now`);
        fits(help, size);
        expect(help).toContain("Everywhere");
        expect(help).toContain("drain serve: it accepts renders but claims none until u");
        for (const line of help.split("\n")) expect(line.endsWith("…")).toBe(false);
        if (name !== "Overview") expect(help).toContain("filter the rows by their text");
        await press("?");
      }
    });

  test("at 200 columns the lists use the width: the render's error message runs past column 100; at 80 it is shortened in the row, whole in the detail", async () => {
    await open(2, LARGE);
    const wide = await frameWith(longFailureId);
    const row = wide.split("\n").find((l) => l.includes(longFailureId))!;
    expect(row.length).toBeGreaterThan(100);
    expect(row).toContain("RENDER_TIMEOUT: The page did not finish loading within RENDER_TIMEOUT_MS");
    ui.unmount();
    await open(2, SMALL);
    const narrow = await frameWith(longFailureId);
    expect(narrow.split("\n").find((l) => l.includes(longFailureId))).toMatch(/RENDER_TIMEOUT: The pa…$/);
  });

  test("at 200 columns a long slug, key name and audit target show whole; at 80 they are shortened and the rows fit", async () => {
    const ctx = { actor: CLI_ACTOR, requestId: "req_seed" };
    const ws = await s.store.tx((tx) => createWorkspace(tx, s.clock, ctx, { name: "Acme Corporation Northern Europe Billing", slug: "acme-corporation-northern-europe-billing" }));
    await createApiKey(s.store, s.clock, ctx, ws.id, { name: "invoice service production", scopes: ["render:create", "render:read", "webhook:manage"] });
    for (const [tab, text] of [[4, "invoice service production"], [5, "Acme Corporation Northern Europe Billing"]] as const) {
      await open(tab, LARGE);
      const wide = (await frameWith(text)).split("\n").find((l) => l.includes(text))!;
      expect(wide).toContain("acme-corporation-northern-europe-billing ");
      if (tab === 4) expect(wide).toContain("render:create,render:read,webhook:manage");
      ui.unmount();
      await open(tab, SMALL);
      const narrow = await frameWith(/acme-corp\S*…/);
      fits(narrow, SMALL);
      expect(narrow).not.toContain(text);
      ui.unmount();
    }
  });
});

describe("Renders: the detail", () => {
  test("Enter opens the selected render: id, status, workspace, timeline, the error's message whole, wrapped within 80 columns; Esc goes back", async () => {
    await open(2);
    await frameWith(longFailureId);
    await press("/", ...longFailureId.slice(-8), ENTER);
    await frameWith("1 of");
    await press(ENTER);
    const detail = await frameWith(`Render ${longFailureId}`);
    fits(detail, SMALL);
    expect(detail).toMatch(/Status\s+failed/);
    expect(detail).toMatch(/Workspace\s+globex/);
    expect(detail).toMatch(/Timeline\s+queued 09:59:00 → claimed 10:00:00 \+60\.00s → failed 10:00:00 \+0\.00s/);
    expect(detail.replace(/\s+/g, " ")).toContain(`RENDER_TIMEOUT: ${LONG_MESSAGE}`);
    // A finished render cannot be cancelled: `c` is not offered and does nothing.
    expect(detail.split("\n").at(-1)).not.toContain("c cancel");
    await press("c");
    expect(ui.lastFrame()).not.toContain("y confirms");
    await press(ESC);
    await frameWith("Filter:");
  });

  test("a succeeded render's detail: printed and stored in its timeline, pages and bytes; a queued one offers c", async () => {
    const done = (await s.store.get<{ id: string }>("SELECT id FROM renders WHERE status = 'succeeded' ORDER BY created_at LIMIT 1"))!.id;
    await s.store.tx((tx) => tx.run("UPDATE renders SET printed_at = '2026-03-10T09:56:02.700Z' WHERE id = $id", { id: done }));
    await open(2);
    await press("/", ...done.slice(-6), ENTER);
    await frameWith("1 of");
    await press(ENTER);
    const detail = await frameWith(`Render ${done}`);
    expect(detail).toMatch(/→ printed 09:56:02 \+0\.70s\s+→ stored 09:56:03 \+0\.30s/);
    expect(detail).toMatch(/Result\s+1 page, 1000 B \(1000 bytes\)/);
    // Back on the list, the newest (queued) render is selected: c is offered.
    await press(ESC, "/", ESC);
    await frameWith(new RegExp(`${s.queuedId}[\\s\\S]*c cancel {2}\\? keys {2}q quit$`));
  });

  test("from 120 columns a succeeded render's first page is beside the list and its detail; at 80 the rows keep the width", async () => {
    const done = (await s.store.get<{ id: string }>("SELECT id FROM renders WHERE status = 'succeeded' ORDER BY created_at LIMIT 1"))!.id;
    for (const size of [LARGE, SMALL]) {
      await open(2, size);
      await press("/", ...done.slice(-6), ENTER);
      const list = await frameWith("1 of");
      fits(list, size);
      expect(list.includes("1 page · 1 kB")).toBe(size === LARGE);
      await press(ENTER);
      const detail = await frameWith(`Render ${done}`);
      fits(detail, size);
      expect(detail.includes("1 page · 1 kB")).toBe(size === LARGE);
      ui.unmount();
    }
  });
});

test("keys that arrive together each count (a held arrow, a paste): two downs in one read select the third row, typed text is kept whole", async () => {
  await open(2);
  await frameWith(s.queuedId);
  await press("\x1b[B\x1b[B", ENTER);
  const third = (await s.store.all<{ id: string }>("SELECT id FROM renders ORDER BY created_at DESC, id DESC LIMIT 3"))[2]!.id;
  await frameWith(`Render ${third}`);
  await press(ESC, "/", "globex", ENTER);
  await frameWith("Filter: globex");
});

describe("Keys", () => {
  test("lists every workspace's keys with scopes, last use and expiry; x then y revokes, audited as `renderd keys revoke`; a revoked key offers no x", async () => {
    const ctx = { actor: CLI_ACTOR, requestId: "req_seed" };
    const ci = await createApiKey(s.store, s.clock, ctx, s.ws.acme, { name: "ci", scopes: ["render:create", "render:read"], expiresInDays: 30 });
    await createApiKey(s.store, s.clock, ctx, s.ws.globex, { name: "ops", scopes: ["audit:read"] });
    await open(4);
    const frame = await frameWith("2 of 2 API keys");
    expect(frame).toMatch(/acme\s+ci\s+active\s+never\s+2026-04-09\s+render:create,render:read/);
    expect(frame).toMatch(/globex\s+ops\s+active\s+never\s+never\s+audit:read/);
    await press(ENTER);
    expect(await frameWith(`API key ${ci.id}`)).toMatch(/Scopes\s+render:create, render:read/);
    await press("x");
    await frameWith(new RegExp(`Revoke ci \\(${ci.id}\\) of acme\\? It stops working at once\\.\\s+y\\s+confirms`));
    await press("y");
    await frameWith(`revoked API key ${ci.id} in workspace acme`);
    const events = await s.store.all<{ actor_type: string; actor_id: string; resource_id: string }>("SELECT actor_type, actor_id, resource_id FROM audit_events WHERE action = 'api_key.revoked'");
    expect(events).toEqual([{ actor_type: "system", actor_id: "cli", resource_id: ci.id }]);
    // The footer follows the detail: no x once the key is revoked.
    await frameWith(/State\s+revoked[\s\S]*\nEsc back {2}\? keys {2}q quit$/);
    await press("x");
    expect(ui.lastFrame()).not.toContain("y confirms");
  });
});

describe("Audit", () => {
  test("newest events of every workspace; / filters; Enter shows the actor, resource, request and metadata", async () => {
    await open(5);
    const frame = await frameWith("newest events");
    expect(frame).toMatch(/03-10 09:56:00\s+globex\s+system\/cli\s+workspace\.created\s+/);
    await press("/", "a", "c", "m", "e", ENTER);
    await frameWith(/1 of \d+ newest events/);
    await press(ENTER);
    const detail = await frameWith("Audit event");
    expect(detail).toMatch(/Actor\s+system cli/);
    expect(detail).toMatch(/Action\s+workspace\.created/);
    expect(detail).toMatch(/Request\s+req_seed/);
  });
});

describe("Logs and the drain, from serve's internal port", () => {
  test("the Logs tab follows serve's lines live; l cycles the level; Enter opens a line's fields", async () => {
    log.info({ renderId: "rnd_kept" }, "kept earlier");
    await open(6, SMALL, SERVE);
    await frameWith("kept earlier");
    log.warn({ deliveryId: "whd_1", error: "The endpoint answered HTTP 503." }, "webhook delivery failed for good");
    log.debug("a debug line");
    const frame = await frameWith("a debug line");
    expect(frame).toMatch(/\d\d:\d\d:\d\d warn\s+webhook delivery failed…\s+deliveryId=whd_1/);
    fits(frame, SMALL);
    await press("l", "l", "l");
    const warned = await frameWith("Level: warn and up");
    expect(warned).toContain("webhook delivery failed");
    expect(warned).not.toContain("a debug line");
    expect(warned).not.toContain("kept earlier");
    await press(ENTER);
    const detail = await frameWith("Log line at");
    expect(detail).toMatch(/Message\s+webhook delivery failed for good/);
    expect(detail).toMatch(/error\s+The endpoint answered HTTP 503\./);
    await press(ESC, "l", "l");
    await frameWith("Level: all (l)");
  });

  test("d then y drains: serve is asked, the header says draining while a render prints and drained after; u resumes", async () => {
    await open(0, SMALL, SERVE);
    await frameWith("serve running: pid 4242");
    await press("d");
    await frameWith("Drain serve? It accepts renders, claims none until u");
    await press("y");
    await frameWith("serve draining (u resumes)");
    expect(paused).toBe(true);
    await frameWith(/\nu resume {2}\? keys {2}q quit$/);
    printing = 0;
    await frameWith("serve drained (u resumes)");
    await press("u");
    await frameWith("serve running: pid 4242");
    expect(paused).toBe(false);
  });

  test("any key but y leaves serve claiming; without serve, d is not offered", async () => {
    await open(0, SMALL, SERVE);
    await frameWith("serve running");
    await press("d", "n");
    await frameWith("drain not asked");
    expect(paused).toBe(false);
    ui.unmount();
    await open(0);
    expect(ui.lastFrame()!.split("\n").at(-1)).not.toContain("d drain");
    await press("d");
    expect(ui.lastFrame()).not.toContain("Drain serve?");
  });
});
