import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { startTestServer, type TestServer } from "../harness";
import { local } from "../fixtures/assets";
import { pdfText, slowHtml } from "../render/fixtures";
import { until } from "../wait";
import { createLogger } from "../../src/logger";
import { sweepRenders } from "../../src/queue/retention";
import { FILE_DELETE_GRACE_MS, sweepFileDeletions } from "../../src/store/file-deletions";
import { watchTx } from "../store/watch-tx";
import { contentKey } from "../../src/store/files";
import { sha256Hex } from "../../src/lib/hash";
import { RECEIVER_ENV, type Receiver } from "../webhooks/receiver";
import { subscribeToEnds } from "../webhooks/subscribe";

let t: TestServer;
let key: string;
let logs = "";
let ends: Receiver;

beforeAll(async () => {
  const sink = new Writable({ write: (chunk, _enc, done) => ((logs += chunk.toString()), done()) });
  t = await startTestServer({ RENDER_WORKERS: "2", ...RECEIVER_ENV }, undefined, { log: createLogger("info", sink) });
  key = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read", "render:cancel", "usage:read"]);
  // A render's end event is written for the endpoints that receive it: this one makes every end here a row to read.
  ends = await subscribeToEnds(t, t.defaultWorkspaceId);
});
afterAll(async () => {
  ends.stop();
  await t.stop();
});

const status = async (id: string) => (await t.server.store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id }))!.status;
const events = (renderId: string) =>
  t.server.store.all<{ type: string; error_code: string | null; test: number }>("SELECT type, error_code, test FROM webhook_events WHERE render_id = $id", { id: renderId });

async function download(url: string): Promise<Response> {
  return fetch(local(t, url));
}

describe("POST /v1/renders", () => {
  test("raw HTML with ?wait answers 200 with the succeeded render; its signed address serves the PDF", async () => {
    const res = await t.call("/v1/renders?wait=30", { key, body: { html: "<h1>Hello renderd</h1>", filename: "hello.pdf", metadata: { order: 42 } } });
    expect(res.status).toBe(200);
    const r = res.body;
    expect(r.id).toMatch(/^rnd_/);
    expect(r).toMatchObject({ status: "succeeded", test: false, filename: "hello.pdf", metadata: { order: 42 } });
    expect(r.result.pages).toBe(1);
    expect(r.result.expiresAt).toBe(new Date(t.clock.now().getTime() + 3600_000).toISOString());
    expect(r.result.downloadUrl.startsWith(`http://console.example.test/results/${r.id}?token=`)).toBe(true);
    const pdf = await download(r.result.downloadUrl);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(pdf.headers.get("content-disposition")).toContain('filename="hello.pdf"');
    const bytes = new Uint8Array(await pdf.arrayBuffer());
    expect(bytes.byteLength).toBe(r.result.bytes);
    expect(pdfText(bytes)).toContain("Hello renderd");
    // Exactly one end event, written with the final state.
    expect(await events(r.id)).toEqual([{ type: "render.succeeded", error_code: null, test: 0 }]);
  });

  test("its 'render succeeded' log line times the worker's own steps, and its request line the acceptance, the wait and the answer, each to the hundredth of a ms (bench/render.ts reads them)", async () => {
    const res = await t.call("/v1/renders?wait=30", { key, body: { html: "<p>timed</p>" } });
    expect(res.status).toBe(200);
    // Both lines are written once the answer has gone out (src/app.ts, src/render/worker.ts).
    const logged = (has: (line: string) => boolean) => logs.split("\n").find(has);
    const succeeded = (l: string) => l.includes(res.body.id) && l.includes("render succeeded");
    const requested = (l: string) => l.includes(`"requestId":"${res.headers.get("x-request-id")}"`) && l.includes('"msg":"request"');
    await until(() => logged(succeeded) !== undefined && logged(requested) !== undefined);
    const line = logged(succeeded)!;
    const { phases, ms, ahead } = JSON.parse(line) as { phases: Record<string, number>; ms: number; ahead?: true };
    // A PDF spooled with the render's end takes no hold and writes no file first (src/render/store-output.ts).
    expect(Object.keys(phases)).toEqual(["print", "finish", "statements", "commit"]);
    for (const value of Object.values(phases)) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(Math.round(value * 100) / 100).toBe(value);
    }
    // The print lap runs from the render's start to Chromium's PDF: pool.render() and the few steps before it — or, for
    // a render printed while its acceptance was written (RenderWorker.printAhead), what was left of pool.render().
    if (ahead) expect(phases.print!).toBeLessThanOrEqual(ms + 0.5);
    else expect(phases.print!).toBeGreaterThanOrEqual(ms - 1);
    // The request's own line times its acceptance, its wait and its answer. The worker's steps lie within the acceptance
    // and the wait: a render claimed in its acceptance's transaction starts as that commits, before the acceptance ends.
    const request = JSON.parse(logged(requested)!) as { phases: Record<string, number> };
    expect(Object.keys(request.phases)).toEqual(["accept", "wait", "answer"]);
    for (const value of Object.values(request.phases)) expect(Math.round(value * 100) / 100).toBe(value);
    expect(request.phases.accept! + request.phases.wait!).toBeGreaterThanOrEqual(Object.values(phases).reduce((sum, v) => sum + v, 0) - 0.05);
  });

  test("without ?wait answers 202 queued; the render then succeeds", async () => {
    const res = await t.call("/v1/renders", { key, body: { html: "<p>later</p>" } });
    expect(res.status).toBe(202);
    expect(["queued", "processing"]).toContain(res.body.status);
    await until(async () => await status(res.body.id) === "succeeded");
    const got = await t.call(`/v1/renders/${res.body.id}`, { key });
    expect(got.body.status).toBe("succeeded");
    expect(got.body.startedAt).toBeDefined();
    expect(got.body.finishedAt).toBeDefined();
  });

  test("a DocumentNode renders with its text escaped: markup in data is text", async () => {
    const document = {
      type: "container",
      children: [
        { type: "text", tagName: "h1", text: "Invoice <b>bold</b> <script>alert(1)</script>" },
        { type: "text", text: "second line" },
      ],
    };
    const res = await t.call("/v1/renders?wait=30", { key, body: { document } });
    expect(res.status).toBe(200);
    const text = pdfText(new Uint8Array(await (await download(res.body.result.downloadUrl)).arrayBuffer()));
    expect(text).toContain("Invoice <b>bold</b> <script>alert(1)</script>");
    expect(text).toContain("second line");
  });

  test("a bad DocumentNode is 400 with the pointer of the bad field", async () => {
    const res = await t.call("/v1/renders", { key, body: { document: { type: "container", children: [{ type: "text" }] } } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.some((d: { path: string }) => d.path.startsWith("/document"))).toBe(true);
    // The detail names the field at fault, however deep the node, not the union around it.
    expect(res.body.error.details).toEqual([{ path: "/document/children/0/text", message: "is required" }]);
    const deep = { type: "container", children: [{ type: "container", children: [{ type: "image", src: "ast_x", width: -1 }] }] };
    const bad = await t.call("/v1/renders", { key, body: { document: deep } });
    expect(bad.body.error.details).toEqual([{ path: "/document/children/0/children/0/width", message: expect.stringContaining("must be") }]);
  });

  test("exactly one of templateId, document and html; data and version only with a template", async () => {
    const both = await t.call("/v1/renders", { key, body: { html: "<p>x</p>", document: { type: "text", text: "x" } } });
    expect(both.status).toBe(400);
    expect(both.body.error.details[0].message).toContain("exactly one");
    const none = await t.call("/v1/renders", { key, body: {} });
    expect(none.status).toBe(400);
    const data = await t.call("/v1/renders", { key, body: { html: "<p>x</p>", data: {} } });
    expect(data.body.error.details).toEqual([{ path: "/data", message: "is only allowed with templateId" }]);
    const extra = await t.call("/v1/renders", { key, body: { html: "<p>x</p>", color: "red" } });
    expect(extra.status).toBe(400);
    expect(extra.body.error.details[0].path).toBe("/color");
  });

  test("?wait is 0..60 seconds", async () => {
    for (const wait of ["61", "-1", "abc", "1.5"]) {
      const res = await t.call(`/v1/renders?wait=${wait}`, { key, body: { html: "<p>x</p>" } });
      expect(res.status).toBe(400);
    }
  });

  test("an unknown template is 404", async () => {
    const res = await t.call("/v1/renders", { key, body: { templateId: "tpl_nothing" } });
    expect(res.status).toBe(404);
  });

  test("scopes: render:create to create, render:read to read, render:cancel to cancel", async () => {
    const readOnly = await t.makeKey(t.defaultWorkspaceId, ["render:read"]);
    expect((await t.call("/v1/renders", { key: readOnly, body: { html: "<p>x</p>" } })).status).toBe(403);
    const createOnly = await t.makeKey(t.defaultWorkspaceId, ["render:create"]);
    const made = await t.call("/v1/renders", { key: createOnly, body: { html: "<p>x</p>" } });
    expect(made.status).toBe(202);
    expect((await t.call(`/v1/renders/${made.body.id}`, { key: createOnly })).status).toBe(403);
    expect((await t.call(`/v1/renders/${made.body.id}/cancel`, { key: readOnly, method: "POST" })).status).toBe(403);
  });

  test("another workspace's render is 404, and so is its cancel", async () => {
    const other = await t.makeWorkspace("Other renders");
    const otherKey = await t.makeKey(other.id, ["render:create", "render:read", "render:cancel"]);
    const mine = await t.call("/v1/renders", { key, body: { html: "<p>mine</p>" } });
    expect((await t.call(`/v1/renders/${mine.body.id}`, { key: otherKey })).status).toBe(404);
    expect((await t.call(`/v1/renders/${mine.body.id}/cancel`, { key: otherKey, method: "POST" })).status).toBe(404);
  });
});

describe("what survives a power cut (docs/rendering.md)", () => {
  test("with ?wait the acceptance commits without waiting for the disk, and is flushed before any answer but the render's own end", async () => {
    const s = await startTestServer({ RENDER_WORKERS: "1" });
    try {
      const k = await s.makeKey(s.defaultWorkspaceId, ["render:create", "render:read"]);
      const store = s.server.store;
      // Observes the real store: how the transaction that inserts a render commits, and each flush of the log.
      const acceptances: boolean[] = [];
      let syncs = 0;
      const sync = store.sync.bind(store);
      store.tx = watchTx(store, (options) => ({
        statement: (sql) => void (sql.trimStart().startsWith("INSERT INTO renders ") && acceptances.push(options?.durable !== false)),
      }));
      store.sync = () => (syncs++, sync());
      const accepted = async (path: string) => {
        acceptances.length = 0;
        const res = await s.call(path, { key: k, body: { html: "<p>durable</p>" } });
        return { status: res.status, id: res.body.id as string, durable: acceptances };
      };

      // Answered at once: the 202 acknowledges the render, so its acceptance waits for the disk.
      const at = await accepted("/v1/renders");
      expect([at.status, at.durable]).toEqual([202, [true]]);
      await until(async () => (await s.server.store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id: at.id }))!.status === "succeeded");
      // Ended within the wait: the render's final commit, durable, came after the acceptance's and carried it to disk.
      const ended = await accepted("/v1/renders?wait=30");
      expect([ended.status, ended.durable, syncs]).toEqual([200, [false], 0]);
      // Not ended within the wait: the log is flushed before the 202.
      await s.server.worker.stop();
      const waited = await accepted("/v1/renders?wait=1");
      expect([waited.status, waited.durable, syncs]).toEqual([202, [false], 1]);
      await s.server.worker.start();
      await until(async () => (await s.server.store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id: waited.id }))!.status === "succeeded");
    } finally {
      await s.stop();
    }
  });
});

describe("what survives a power cut: the PDF (docs/rendering.md)", () => {
  test("the PDF's bytes commit in the transaction that ends the render, which waits for the disk; its file is written after", async () => {
    const s = await startTestServer({ RENDER_WORKERS: "1" });
    try {
      const k = await s.makeKey(s.defaultWorkspaceId, ["render:create", "render:read"]);
      const store = s.server.store;
      // Each transaction that spools a PDF: whether it waits for the disk, whether it ends a render as succeeded with
      // that PDF, and whether the PDF's file existed when it was spooled.
      const spooling: Array<{ durable: boolean; ends: boolean; fileFirst: boolean }> = [];
      store.tx = watchTx(store, (options) => {
        const seen = { durable: options?.durable !== false, ended: "", fileFirst: false, spooled: "" };
        return {
          statement(sql, params) {
            if (sql.startsWith("INSERT INTO output_spool")) {
              seen.spooled = String(params!.sha);
              seen.fileFirst = existsSync(join(s.dataDir, contentKey("outputs", seen.spooled)));
            }
            if (sql.trimStart().startsWith("UPDATE renders SET status = $status") && params?.status === "succeeded") seen.ended = String(params.sha);
          },
          done() {
            if (seen.spooled) spooling.push({ durable: seen.durable, ends: seen.ended === seen.spooled, fileFirst: seen.fileFirst });
          },
        };
      });

      const res = await s.call("/v1/renders?wait=30", { key: k, body: { html: "<p>spooled with its end</p>" } });
      expect(res.body.status).toBe("succeeded");
      expect(spooling).toEqual([{ durable: true, ends: true, fileFirst: false }]);
      const sha = (await store.get<{ output_sha256: string }>("SELECT output_sha256 FROM renders WHERE id = $id", { id: res.body.id }))!.output_sha256;
      await s.server.files.settled();
      expect(await store.all("SELECT sha256 FROM output_spool")).toEqual([]);
      expect(sha256Hex((await s.server.files.read("outputs", sha))!)).toBe(sha);
    } finally {
      await s.stop();
    }
  });
});

describe("a render page reaches nothing (DESIGN.md 4)", () => {
  test("raw HTML reaching for files, a UNC path, loopback and the metadata address: no canary hit, no file printed", async () => {
    const hits: string[] = [];
    const canary = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => (hits.push(new URL(r.url).pathname), new Response("CANARY-LEAK")) });
    try {
      const h = `http://127.0.0.1:${canary.port}`;
      const html = `<meta http-equiv="refresh" content="0;url=${h}/refresh">
        <style>@import url(${h}/import.css); body { background: url(${h}/bg.png) } p::after { content: url(file:///etc/hostname) }</style>
        <link rel="stylesheet" href="${h}/sheet.css"><img src="file:///etc/passwd"><img src="\\\\localhost\\share\\x.png">
        <img src="http://169.254.169.254/latest/meta-data/"><iframe src="file:///etc/passwd"></iframe><iframe src="${h}/frame"></iframe>
        <p>only this</p>`;
      const res = await t.call("/v1/renders?wait=30", { key, body: { html } });
      expect(res.body.status).toBe("succeeded");
      const text = pdfText(new Uint8Array(await (await download(res.body.result.downloadUrl)).arrayBuffer()));
      expect(text).toContain("only this");
      expect(text).not.toContain("root:");
      expect(text).not.toContain("CANARY");
      await Bun.sleep(300);
      expect(hits).toEqual([]);
    } finally {
      canary.stop(true);
    }
  });
});

describe("failures carry the codes of 7.2", () => {
  test("a document over RENDER_MAX_PAGES fails with LIMIT_EXCEEDED; with ?wait the answer is that error with the renderId", async () => {
    const limited = await startTestServer({ RENDER_WORKERS: "1", RENDER_MAX_PAGES: "2", RENDER_MAX_OUTPUT_BYTES: "30000", RENDER_TIMEOUT_MS: "1000", ...RECEIVER_ENV });
    let receiver: Receiver | undefined;
    try {
      const k = await limited.makeKey(limited.defaultWorkspaceId, ["render:create", "render:read"]);
      receiver = await subscribeToEnds(limited, limited.defaultWorkspaceId);
      const pages = (n: number) => Array.from({ length: n }, (_, i) => `<p style="page-break-after:always">page ${i}</p>`).join("");
      const over = await limited.call("/v1/renders?wait=30", { key: k, body: { html: pages(3) } });
      expect(over.status).toBe(413);
      expect(over.body.error.code).toBe("LIMIT_EXCEEDED");
      expect(over.body.error.renderId).toMatch(/^rnd_/);
      const read = await limited.call(`/v1/renders/${over.body.error.renderId}`, { key: k });
      expect(read.body.status).toBe("failed");
      expect(read.body.error.code).toBe("LIMIT_EXCEEDED");
      expect(read.body.result).toBeUndefined();
      const event = await limited.server.store.get<{ type: string; error_code: string }>("SELECT type, error_code FROM webhook_events WHERE render_id = $id", { id: over.body.error.renderId });
      expect(event).toEqual({ type: "render.failed", error_code: "LIMIT_EXCEEDED" });

      const exact = await limited.call("/v1/renders?wait=30", { key: k, body: { html: pages(2) } });
      expect(exact.status).toBe(200);

      const big = await limited.call("/v1/renders?wait=30", { key: k, body: { html: `<img src="data:image/svg+xml,${encodeURIComponent(noise())}" width="700">` } });
      expect(big.status).toBe(413);
      expect(big.body.error.message).toContain("30000");

      const slow = await limited.call("/v1/renders?wait=30", { key: k, body: { html: slowHtml(2) } });
      expect(slow.status).toBe(504);
      expect(slow.body.error.code).toBe("RENDER_TIMEOUT");
    } finally {
      receiver?.stop();
      await limited.stop();
    }
  });

  test("a request body over RENDER_MAX_INPUT_BYTES is 413 LIMIT_EXCEEDED and creates nothing", async () => {
    const limited = await startTestServer({ RENDER_WORKERS: "1", RENDER_MAX_INPUT_BYTES: "2048" });
    try {
      const k = await limited.makeKey(limited.defaultWorkspaceId, ["render:create"]);
      const res = await limited.call("/v1/renders", { key: k, body: { html: `<p>${"x".repeat(4000)}</p>` } });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe("LIMIT_EXCEEDED");
      expect((await limited.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM renders"))!.n).toBe(0);
    } finally {
      await limited.stop();
    }
  });
});

// An SVG of many rectangles: one page whose PDF is well over 30 kB.
function noise(): string {
  const rects = Array.from({ length: 6000 }, (_, i) => `<rect x="${(i * 37) % 700}" y="${(i * 53) % 900}" width="3" height="3" fill="#${((i * 2654435761) % 0xffffff).toString(16).padStart(6, "0")}"/>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="700" height="900">${rects.join("")}</svg>`;
}

describe("cancel", () => {
  test("a queued render is cancelled at once: its event, its usage, and no PDF", async () => {
    await t.server.worker.stop();
    try {
      const res = await t.call("/v1/renders", { key, body: { html: "<p>never printed</p>" } });
      expect(res.body.status).toBe("queued");
      const cancelled = await t.call(`/v1/renders/${res.body.id}/cancel`, { key, method: "POST" });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe("cancelled");
      expect(cancelled.body.finishedAt).toBeDefined();
      expect(cancelled.body.result).toBeUndefined();
      expect(await events(res.body.id)).toEqual([{ type: "render.cancelled", error_code: null, test: 0 }]);
    } finally {
      await t.server.worker.start();
    }
  });

  test("a processing render is stopped: cancelled, no PDF kept, one event", async () => {
    const res = await t.call("/v1/renders", { key, body: { html: slowHtml(3) } });
    await until(async () => await status(res.body.id) === "processing");
    const cancelled = await t.call(`/v1/renders/${res.body.id}/cancel`, { key, method: "POST" });
    expect(cancelled.body.status).toBe("cancelled");
    // The page is handed back and the next render prints.
    const next = await t.call("/v1/renders?wait=30", { key, body: { html: "<p>after cancel</p>" } });
    expect(next.body.status).toBe("succeeded");
    const row = await t.server.store.get<{ status: string; output_sha256: string | null }>("SELECT status, output_sha256 FROM renders WHERE id = $id", { id: res.body.id })!;
    expect(row).toEqual({ status: "cancelled", output_sha256: null });
    expect(await events(res.body.id)).toEqual([{ type: "render.cancelled", error_code: null, test: 0 }]);
  });

  test("an ended render cannot be cancelled: 409 CONFLICT, state unchanged", async () => {
    const done = await t.call("/v1/renders?wait=30", { key, body: { html: "<p>done</p>" } });
    const res = await t.call(`/v1/renders/${done.body.id}/cancel`, { key, method: "POST" });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("CONFLICT");
    expect(await status(done.body.id)).toBe("succeeded");
  });
});

describe("GET /v1/renders", () => {
  test("lists newest first and filters by status and test", async () => {
    const ws = await t.makeWorkspace("Lister");
    const k = await t.makeKey(ws.id, ["render:create", "render:read"]);
    const a = await t.call("/v1/renders?wait=30", { key: k, body: { html: "<p>a</p>" } });
    const b = await t.call("/v1/renders?wait=30", { key: k, body: { html: "<p>b</p>", test: true } });
    const all = await t.call("/v1/renders", { key: k });
    expect(all.body.items.map((r: { id: string }) => r.id)).toEqual([b.body.id, a.body.id]);
    const tests = await t.call("/v1/renders?test=true", { key: k });
    expect(tests.body.items.map((r: { id: string }) => r.id)).toEqual([b.body.id]);
    const failed = await t.call("/v1/renders?status=failed", { key: k });
    expect(failed.body.items).toEqual([]);
    const paged = await t.call("/v1/renders?limit=1", { key: k });
    expect(paged.body.items).toHaveLength(1);
    const next = await t.call(`/v1/renders?limit=1&cursor=${paged.body.nextCursor}`, { key: k });
    expect(next.body.items[0].id).toBe(a.body.id);
    expect((await t.call("/v1/renders?status=done", { key: k })).status).toBe(400);
    expect((await t.call("/v1/renders?test=yes", { key: k })).status).toBe(400);
  });
});

describe("results and usage", () => {
  test("a result address is refused when tampered with or expired", async () => {
    const done = await t.call("/v1/renders?wait=30", { key, body: { html: "<p>signed</p>" } });
    const url = new URL(local(t, done.body.result.downloadUrl));
    const tampered = new URL(url);
    tampered.searchParams.set("token", (url.searchParams.get("token"))!.replace(/.$/, (c) => (c === "A" ? "B" : "A")));
    expect((await fetch(tampered)).status).toBe(403);
    t.clock.advance(3601_000);
    try {
      expect((await fetch(url)).status).toBe(403);
    } finally {
      t.clock.advance(-3601_000);
    }
  });

  test("every final state counts once in the day's usage record", async () => {
    const ws = await t.makeWorkspace("Usage counter");
    const k = await t.makeKey(ws.id, ["render:create", "render:read", "render:cancel", "usage:read"]);
    await t.call("/v1/renders?wait=30", { key: k, body: { html: "<p>one</p>" } });
    await t.call("/v1/renders?wait=30", { key: k, body: { html: "<p style='page-break-after:always'>1</p><p>2</p>", test: true } });
    const queued = await t.call("/v1/renders", { key: k, body: { html: slowHtml(3) } });
    await t.call(`/v1/renders/${queued.body.id}/cancel`, { key: k, method: "POST" });
    const usage = await t.call("/v1/usage", { key: k });
    expect(usage.body.totals).toMatchObject({ rendersSucceeded: 2, rendersFailed: 0, rendersCancelled: 1, pages: 3 });
    expect(usage.body.days).toHaveLength(1);
    expect(usage.body.days[0].day).toBe("2026-03-10");
  });

  test("retention deletes renders that ended RETENTION_DAYS ago and their PDFs; the usage record stays", async () => {
    const ws = await t.makeWorkspace("Retention");
    const k = await t.makeKey(ws.id, ["render:create", "render:read", "usage:read"]);
    const done = await t.call("/v1/renders?wait=30", { key: k, body: { html: "<p>kept for a while</p>" } });
    const sha = (await t.server.store.get<{ output_sha256: string }>("SELECT output_sha256 FROM renders WHERE id = $id", { id: done.body.id }))!.output_sha256;
    expect(await t.server.files.stat("outputs", sha)).not.toBeNull();
    // The worker's hold on the PDF went in the transaction that ended the render.
    expect(await t.server.store.get("SELECT holder FROM file_holds WHERE sha256 = $sha", { sha })).toBeNull();
    const later = new Date(t.clock.now().getTime() + 31 * 86_400_000);
    const swept = await sweepRenders(t.server.store, { now: () => later }, 30);
    expect(swept.renders).toBeGreaterThanOrEqual(1);
    expect(swept.outputs).toBeGreaterThanOrEqual(1);
    expect((await t.call(`/v1/renders/${done.body.id}`, { key: k })).status).toBe(404);
    expect((await fetch(local(t, done.body.result.downloadUrl))).status).toBe(404);
    // The PDF goes once its deletion is due (docs/architecture.md "Deleting shared bytes").
    await sweepFileDeletions(t.server.store, t.server.files, { now: () => later });
    expect(await t.server.files.stat("outputs", sha)).not.toBeNull();
    expect(await sweepFileDeletions(t.server.store, t.server.files, { now: () => new Date(later.getTime() + FILE_DELETE_GRACE_MS) })).toBeGreaterThanOrEqual(1);
    expect(await t.server.files.stat("outputs", sha)).toBeNull();
    const usage = await t.call("/v1/usage", { key: k });
    expect(usage.body.totals.rendersSucceeded).toBe(1);
  });
});
