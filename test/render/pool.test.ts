import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError } from "../../src/errors";
import { countPdfPages, countPageObjects } from "../../src/render/pdf";
import { ASSET_ORIGIN, assetUrl, newAssetScope, parseAssetUrl } from "../../src/render/assets";
import { PoolCrashError, RenderPool, type AssetBody } from "../../src/render/pool";
import { until, rejection } from "../wait";
import { pngOf } from "../fixtures/assets";

// bunfig.toml's [test] timeout is not applied by Bun 1.4.5; Chromium on two busy cores needs more than 5 s at times.
setDefaultTimeout(30_000);

// The real Chromium (STYLE habit 10), one pool of two pages for the whole file.
const dir = mkdtempSync(join(tmpdir(), "renderd-pool-test-"));
let pool: RenderPool;

beforeAll(async () => {
  pool = new RenderPool({ size: 2, chromiumPath: "/usr/bin/chromium", timeoutMs: 10_000, recycleAfter: 6, maxPages: 50 });
  await pool.start();
});

afterAll(async () => {
  await pool.stop();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
function save(pdf: Uint8Array): string {
  const file = join(dir, `${++files}.pdf`);
  writeFileSync(file, pdf);
  return file;
}

function run(command: string[]): string {
  const result = Bun.spawnSync(command);
  if (result.exitCode !== 0) throw new Error(`${command[0]}: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

const pdftotext = (pdf: Uint8Array) => run(["pdftotext", "-layout", save(pdf), "-"]);
const pdfinfo = (pdf: Uint8Array) => run(["pdfinfo", save(pdf)]);
const pdfinfoPages = (pdf: Uint8Array) => Number(/^Pages:\s+(\d+)/m.exec(pdfinfo(pdf))![1]);
const pdfimages = (pdf: Uint8Array) => run(["pdfimages", "-list", save(pdf)]).trim().split("\n").slice(2);
const pdffonts = (pdf: Uint8Array) => run(["pdffonts", save(pdf)]).trim().split("\n").slice(2).map((line) => line.split(/\s+/)[0]);

/** pages builds a document of n pages, each saying its number. */
const pages = (n: number) =>
  Array.from({ length: n }, (_, i) => `<section${i < n - 1 ? ' style="break-after:page"' : ""}>Sheet ${i + 1}</section>`).join("");

/** png makes a real RGB PNG of w×h pixels, a gradient. */
const png = (w: number, h: number) => pngOf(w, h, (x, y) => [(x * 7) & 255, (y * 5) & 255, 160]);

const text = (body: string, contentType: string): AssetBody => ({ body: new TextEncoder().encode(body), contentType });



describe("asset URLs", () => {
  test("parseAssetUrl reads back the asset id assetUrl wrote, and answers null for any other URL", () => {
    expect(assetUrl("ast_logo")).toBe("https://assets.renderd.invalid/ast_logo");
    expect(parseAssetUrl(assetUrl("ast_logo"))?.assetId).toBe("ast_logo");
    expect(parseAssetUrl(assetUrl("a b/c"))?.assetId).toBe("a b/c");
    for (const url of ["https://assets.renderd.invalid/", "https://assets.renderd.invalid/a/b", "https://assets.renderd.invalid/a?x", "https://assets.renderd.invalid.evil/a", "http://assets.renderd.invalid/a", "file:///etc/passwd"])
      expect(parseAssetUrl(url)).toBeNull();
  });

  test("scoped asset URLs carry the render's scope; scopes are fresh and well formed", () => {
    const scope = newAssetScope();
    expect(scope).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(newAssetScope()).not.toBe(scope);
    expect(assetUrl("ast_logo", scope)).toBe(`https://assets.renderd.invalid/~${scope}/ast_logo`);
    expect(parseAssetUrl(assetUrl("ast_logo", scope))).toEqual({ assetId: "ast_logo", scope });
    expect(parseAssetUrl(assetUrl("ast_logo"))).toEqual({ assetId: "ast_logo", scope: undefined });
    expect(parseAssetUrl(assetUrl("ast_logo", scope))?.assetId).toBe("ast_logo");
    expect(() => assetUrl("ast_logo", "short")).toThrow();
    for (const url of [`${ASSET_ORIGIN}/~short/ast_x`, `${ASSET_ORIGIN}/~${scope}/`, `${ASSET_ORIGIN}/~${scope}/a/b`, `${ASSET_ORIGIN}/~${scope}`])
      expect(parseAssetUrl(url)).toBeNull();
  });
});

describe("rendering", () => {
  test("renders a PDF whose text pdftotext reads back", async () => {
    const out = await pool.render({ html: "<h1>Invoice 2026-0042</h1><p>Total due: 1,234.50 EUR</p>" });
    expect(Buffer.from(out.pdf.subarray(0, 5)).toString()).toBe("%PDF-");
    expect(out.bytes).toBe(out.pdf.byteLength);
    expect(out.pages).toBe(1);
    expect(out.ms).toBeGreaterThan(0);
    const words = pdftotext(out.pdf);
    expect(words).toContain("Invoice 2026-0042");
    expect(words).toContain("Total due: 1,234.50 EUR");
    expect(pdfinfo(out.pdf)).toMatch(/Page size:\s+59\d(\.\d+)? x 84\d(\.\d+)? pts \(A4\)/);
  });

  test("page settings pass through: Letter, landscape", async () => {
    const out = await pool.render({ html: "<p>wide</p>", pdf: { format: "Letter", landscape: true } });
    expect(pdfinfo(out.pdf)).toMatch(/Page size:\s+792 x 612 pts/);
  });

  test("header and footer templates print with page numbers", async () => {
    const out = await pool.render({
      html: pages(3),
      pdf: {
        displayHeaderFooter: true,
        headerTemplate: "<div style='font-size:10px'>ACME header</div>",
        footerTemplate: "<div style='font-size:10px'>Page <span class=pageNumber></span> of <span class=totalPages></span></div>",
        margin: { top: "2cm", bottom: "2cm" },
      },
    });
    const words = pdftotext(out.pdf);
    expect(words).toContain("ACME header");
    expect(words).toContain("Page 2 of 3");
  });

  test.each([1, 7, 45])("counts %i pages as pdfinfo does", async (n) => {
    const out = await pool.render({ html: pages(n) });
    expect(out.pages).toBe(n);
    expect(pdfinfoPages(out.pdf)).toBe(n);
    expect(countPageObjects(Buffer.from(out.pdf).toString("latin1"))).toBe(n);
    expect(pdftotext(out.pdf)).toContain(`Sheet ${n}`);
  });

  test("a document that poses as pages (title, text) does not change the count", async () => {
    const out = await pool.render({ html: "<title>/Type /Page /Type /Page 9 0 obj /Count 99</title><p>/Type /Page</p>" });
    expect(out.pages).toBe(1);
    expect(pdfinfoPages(out.pdf)).toBe(1);
  });

  test("countPdfPages falls back to counting page objects when the xref is unreadable", () => {
    const fake = new TextEncoder().encode("%PDF-1.4\n1 0 obj <</Type /Page>> endobj\n2 0 obj <</Type /Page>> endobj\n3 0 obj <</Type /Pages /Count 2>> endobj\n%%EOF");
    expect(countPdfPages(fake)).toBe(2);
  });
});

describe("assets by interception", () => {
  test("an <img> with an asset URL is served from the job's loader", async () => {
    const asked: string[] = [];
    const html = `<p>Logo:</p><img src="${assetUrl("ast_logo")}" width="200" height="200">`;
    const withImage = await pool.render({
      html,
      assets: async (url) => {
        asked.push(url);
        return parseAssetUrl(url)?.assetId === "ast_logo" ? { body: png(64, 64), contentType: "image/png" } : null;
      },
    });
    expect(asked).toEqual([assetUrl("ast_logo")]);
    // pdfimages -list: page, num, type, width, height…; the 64×64 picture is there only when the loader served it
    // (without it Chromium draws its small broken-image icon).
    const picture = (pdf: Uint8Array) => pdfimages(pdf).some((line) => / image\s+64\s+64 /.test(line));
    expect(picture(withImage.pdf)).toBe(true);
    const without = await pool.render({ html, assets: async () => null });
    expect(picture(without.pdf)).toBe(false);
    expect(withImage.bytes).toBeGreaterThan(without.bytes);
  });

  test("a stylesheet asset applies, and the font it names loads from another asset", async () => {
    const font = readFileSync("/usr/share/fonts/truetype/dejavu/DejaVuSerifCondensed-BoldItalic.ttf");
    const out = await pool.render({
      html: `<link rel="stylesheet" href="${assetUrl("ast_css")}"><h1>Styled</h1>`,
      assets: async (url) => {
        if (parseAssetUrl(url)?.assetId === "ast_css")
          return text(`@font-face{font-family:Brand;src:url(${assetUrl("ast_font")})} h1{font-family:Brand} h1::after{content:" by the stylesheet"}`, "text/css");
        if (parseAssetUrl(url)?.assetId === "ast_font") return { body: font, contentType: "font/ttf" };
        return null;
      },
    });
    expect(pdftotext(out.pdf)).toContain("Styled by the stylesheet");
    expect(pdffonts(out.pdf).some((name) => name.endsWith("+DejaVuSerifCondensed-BoldItalic"))).toBe(true);
  });

  // Each job here asks for unscoped asset URLs, which taints its Document: the page moves to a new one (about:blank)
  // after it, and every sixth render replaces the page. Those loads, made through Playwright's session, also fired on
  // the printer's own session, at times late enough to end the next job's wait for its load event. Printing waits for
  // the stylesheet but not for a font not yet asked for: the heading printed invisible, in the font's block period (the
  // test above failed in CI so; here the first job after a page was replaced, round 8, did every time).
  test("after a page moved to a new Document or was replaced, the next job prints only once its stylesheet's font arrived (12 rounds)", async () => {
    const font = readFileSync("/usr/share/fonts/truetype/dejavu/DejaVuSerifCondensed-BoldItalic.ttf");
    for (let round = 1; round <= 12; round++) {
      const out = await pool.render({
        html: `<link rel="stylesheet" href="${assetUrl("ast_css")}"><h1>Round ${round}</h1>`,
        assets: async (url) => {
          if (parseAssetUrl(url)?.assetId === "ast_font") return { body: font, contentType: "font/ttf" };
          return text(`@font-face{font-family:Brand;src:url(${assetUrl("ast_font")})} h1{font-family:Brand}`, "text/css");
        },
      });
      expect(pdftotext(out.pdf)).toContain(`Round ${round}`);
    }
  });

  // The document is measured (the layout check) and printed once its load event fired; Chromium's printing also waits
  // for loading to stop, so this holds the promise either way rather than the order inside print().
  test("an image, a stylesheet and its font that arrive late are all printed", async () => {
    const font = readFileSync("/usr/share/fonts/truetype/dejavu/DejaVuSerifCondensed-BoldItalic.ttf");
    const late = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 300));
    const out = await pool.render({
      html: `<link rel="stylesheet" href="${assetUrl("ast_css")}"><h1>Late</h1><img src="${assetUrl("ast_logo")}" width="200" height="200">`,
      assets: async (url) => {
        const id = parseAssetUrl(url)?.assetId;
        if (id === "ast_css") return late(text(`@font-face{font-family:Brand;src:url(${assetUrl("ast_font")})} h1{font-family:Brand} h1::after{content:" but styled"}`, "text/css"));
        if (id === "ast_font") return late({ body: font, contentType: "font/ttf" });
        return id === "ast_logo" ? late({ body: png(64, 64), contentType: "image/png" }) : null;
      },
    });
    expect(pdftotext(out.pdf)).toContain("Late but styled");
    expect(pdffonts(out.pdf).some((name) => name.endsWith("+DejaVuSerifCondensed-BoldItalic"))).toBe(true);
    expect(pdfimages(out.pdf).some((line) => / image\s+64\s+64 /.test(line))).toBe(true);
  });

  test("a scoped job is served its own scope only: unscoped and other scopes' asset URLs are refused", async () => {
    const scope = newAssetScope();
    const other = newAssetScope();
    const asked: string[] = [];
    const out = await pool.render({
      html:
        `<link rel="stylesheet" href="${assetUrl("ast_a", scope)}"><link rel="stylesheet" href="${assetUrl("ast_b", other)}">` +
        `<link rel="stylesheet" href="${assetUrl("ast_c")}"><p>scoped</p>`,
      assetScope: scope,
      assets: async (url) => {
        asked.push(url);
        return text(`p::after{content:" from ${parseAssetUrl(url)?.assetId}"}`, "text/css");
      },
    });
    expect(asked).toEqual([assetUrl("ast_a", scope)]);
    expect(pdftotext(out.pdf)).toContain("scoped from ast_a");
  });

  test("a loader that throws leaves the asset out; the render still succeeds", async () => {
    const out = await pool.render({
      html: `<img src="${assetUrl("ast_x")}" width="50" height="50"><p>still here</p>`,
      assets: async () => {
        throw new Error("store unavailable");
      },
    });
    expect(pdftotext(out.pdf)).toContain("still here");
  });
});

describe("limits", () => {
  test("maxPages: one page too many is LIMIT_EXCEEDED; exactly the limit passes", async () => {
    const error = await rejection(pool.render({ html: pages(4), maxPages: 3 }));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("LIMIT_EXCEEDED");
    expect((await pool.render({ html: pages(3), maxPages: 3 })).pages).toBe(3);
  });

  test("a job cannot raise the pool's page limit (50)", async () => {
    const error = await rejection(pool.render({ html: pages(51), maxPages: 500 }));
    expect((error as ApiError).code).toBe("LIMIT_EXCEEDED");
  });

  test("maxOutputBytes → LIMIT_EXCEEDED", async () => {
    const error = await rejection(pool.render({ html: "<p>small but not that small</p>", maxOutputBytes: 1000 }));
    expect((error as ApiError).code).toBe("LIMIT_EXCEEDED");
    expect(error.message).toContain("1000");
  });

  test("deadline: a page that never finishes loading is RENDER_TIMEOUT, its page replaced, and the pool renders on", async () => {
    const before = pool.stats();
    const started = performance.now();
    const error = await rejection(
      pool.render({ html: `<img src="${assetUrl("ast_slow")}"><p>never</p>`, assets: () => new Promise(() => {}), deadlineMs: 700 }),
    );
    const took = performance.now() - started;
    expect((error as ApiError).code).toBe("RENDER_TIMEOUT");
    expect(took).toBeGreaterThanOrEqual(690);
    expect(took).toBeLessThan(3000);
    await until(() => pool.idle() === 2);
    const after = pool.stats();
    expect(after.timeouts).toBe(before.timeouts + 1);
    expect(after.pagesOpened).toBeGreaterThanOrEqual(before.pagesOpened + 1);
    expect(pdftotext((await pool.render({ html: "<p>after the timeout</p>" })).pdf)).toContain("after the timeout");
  });

  test("a job deadline longer than the pool's timeout is cut to it", async () => {
    const short = new RenderPool({ size: 1, chromiumPath: "/usr/bin/chromium", timeoutMs: 500 });
    await short.start();
    try {
      const started = performance.now();
      const error = await rejection(short.render({ html: `<img src="${assetUrl("a")}">`, assets: () => new Promise(() => {}), deadlineMs: 60_000 }));
      expect((error as ApiError).code).toBe("RENDER_TIMEOUT");
      expect(performance.now() - started).toBeLessThan(2500);
    } finally {
      await short.stop();
    }
  });
});

describe("pages", () => {
  test("a page is recycled after recycleAfter (6) renders", async () => {
    await until(() => pool.idle() === 2);
    const before = pool.stats();
    // Two pages hold at most 5 renders each before a recycle, whichever page takes each render: 22 renders need at
    // least (22 - 10) / 6 = 2 recycles.
    for (let i = 0; i < 22; i++) await pool.render({ html: `<p>${i}</p>` });
    await until(() => pool.idle() === 2);
    const after = pool.stats();
    expect(after.recycled).toBeGreaterThanOrEqual(before.recycled + 2);
    expect(after.pagesOpened).toBeGreaterThanOrEqual(before.pagesOpened + 2);
    expect(Math.max(...after.pages.map((page) => page.generation))).toBeGreaterThan(1);
    for (const page of after.pages) expect(page.renders).toBeLessThan(6);
  });

  test("a page over the memory budget is recycled by the watchdog", async () => {
    // A budget no renderer can meet: every check replaces a page, and renders go on meanwhile.
    const lean = new RenderPool({ size: 1, chromiumPath: "/usr/bin/chromium", timeoutMs: 10_000, maxPageMemoryBytes: 1, healthIntervalMs: 200 });
    await lean.start();
    try {
      await until(() => lean.stats().recycled >= 2);
      expect(lean.stats().pages[0].generation).toBeGreaterThanOrEqual(2);
      expect((await lean.render({ html: "<p>lean</p>" })).pages).toBe(1);
    } finally {
      await lean.stop();
    }
  });

  test("renders wait for a free page, first come first served", async () => {
    await until(() => pool.idle() === 2);
    const started: number[] = [];
    const gates: (() => void)[] = [];
    const job = (i: number) =>
      pool.render({
        html: `<link rel="stylesheet" href="${assetUrl(`ast_${i}`)}"><p>job ${i}</p>`,
        assets: async () => {
          started.push(i);
          await new Promise<void>((resolve) => gates.push(resolve));
          return text("p{color:blue}", "text/css");
        },
      });
    const all = [0, 1, 2, 3, 4, 5].map(job);
    await until(() => started.length === 2);
    expect(pool.idle()).toBe(0);
    expect(pool.stats().waiting).toBe(4);
    // Let renders through one at a time: each freed page goes to the oldest waiter. The next page is freed only once
    // the render given the last one has asked for its stylesheet, so the order seen is the order pages were handed out
    // (a fixed sleep let a slow page's request arrive after a later one's on a loaded machine).
    for (let released = 0; released < 6; released++) {
      await until(() => gates.length > 0);
      gates.shift()!();
      await until(() => started.length >= Math.min(6, released + 3));
    }
    const outs = await Promise.all(all);
    // The first two start together on the two pages; every later one in the order it was asked for.
    expect(started.slice(0, 2).sort()).toEqual([0, 1]);
    expect(started.slice(2)).toEqual([2, 3, 4, 5]);
    outs.forEach((out, i) => expect(pdftotext(out.pdf)).toContain(`job ${i}`));
  });

  test("an aborted render rejects with the signal's reason, waiting or printing, and the pool carries on", async () => {
    await until(() => pool.idle() === 2);
    const hold = () => new Promise<AssetBody | null>(() => {});
    const busy = new AbortController();
    const first = pool.render({ html: `<img src="${assetUrl("a")}">`, assets: hold }, busy.signal);
    const second = pool.render({ html: `<img src="${assetUrl("b")}">`, assets: hold }, busy.signal);
    const queued = new AbortController();
    const third = pool.render({ html: "<p>queued</p>" }, queued.signal);
    await until(() => pool.stats().waiting === 1);
    queued.abort(new Error("cancelled while waiting"));
    expect((await rejection(third)).message).toBe("cancelled while waiting");
    expect(pool.stats().waiting).toBe(0);
    busy.abort();
    for (const e of [await rejection(first), await rejection(second)]) expect(e.name).toBe("AbortError");
    await until(() => pool.idle() === 2);
    expect(pdftotext((await pool.render({ html: "<p>after aborts</p>" })).pdf)).toContain("after aborts");
    const pre = new AbortController();
    pre.abort();
    expect((await rejection(pool.render({ html: "<p>x</p>" }, pre.signal))).name).toBe("AbortError");
  });

  test("healthy, idle and stats describe the pool", async () => {
    await until(() => pool.idle() === 2);
    expect(pool.healthy()).toBe(true);
    const stats = pool.stats();
    expect(stats.state).toBe("running");
    expect(stats.size).toBe(2);
    expect(stats.pages).toHaveLength(2);
    expect(stats.browsers).toHaveLength(1);
    expect(stats.browsers[0].pid).toBe(pool.browserPids()[0]);
    expect(stats.rendered).toBeGreaterThan(10);
    expect(stats.rssBytes).toBeGreaterThan(stats.pssBytes);
    expect(stats.pssBytes).toBeGreaterThan(10_000_000);
  });

  test("PoolCrashError is a RENDER_FAILED ApiError that says what crashed", () => {
    const error = new PoolCrashError("page", "crashed");
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe("RENDER_FAILED");
    expect(error.kind).toBe("page");
    expect(ASSET_ORIGIN).toBe("https://assets.renderd.invalid");
  });
});
