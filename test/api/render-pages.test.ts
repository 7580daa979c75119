/**
 * render-pages: page images of renders (issue 30, docs/pdf.md "Page images") — an invoice rendered through the real
 * server and Chromium, its page image compared with the same stored PDF drawn independently by Ghostscript, the signed
 * pageImageUrl, the second ask served from the store, `output` images listed in result.images, and every bad ask.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ok, startTestServer, type TestServer } from "../harness";
import { local } from "../fixtures/assets";
import { INVOICE_DATA, INVOICE_TEMPLATE } from "../fixtures/invoice";
import { blocks, decodePng, decodeWebp, difference, ghostscriptPage, jpegSize } from "../pdf/pixels";

let t: TestServer;
let key: string;
let invoice: any; // a succeeded render of the published invoice template
let pdf: Uint8Array;

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1" });
  key = await t.makeKey(t.defaultWorkspaceId, ["template:read", "template:write", "template:publish", "render:create", "render:read"]);
  const template = ok(await t.call("/v1/templates", { key, body: INVOICE_TEMPLATE }), 201);
  ok(await t.call(`/v1/templates/${template.id}/publish`, { key, method: "POST" }), 201);
  invoice = ok(await t.call("/v1/renders?wait=30", { key, body: { templateId: template.id, data: INVOICE_DATA } }), 200);
  pdf = new Uint8Array(await (await fetch(local(t, invoice.result.downloadUrl))).arrayBuffer());
});
afterAll(() => t.stop());
beforeEach(() => t.clock.advance(61_000));

const image = (path: string, k: string | null = key) => fetch(t.url + path, { headers: k ? { "x-api-key": k } : {} });

describe("GET /v1/renders/{id}/pages/{n}", () => {
  test("page 1 of an invoice is the stored PDF's page: within a small pixel difference of Ghostscript's drawing of the downloaded file", async () => {
    const res = await image(`/v1/renders/${invoice.id}/pages/1?dpi=96`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    const drawn = decodePng(new Uint8Array(await res.arrayBuffer()));
    // A4 at 96 dpi: 794 × 1123 pixels.
    expect([drawn.width, drawn.height]).toEqual([794, 1123]);
    // Compared in 4 × 4 blocks: two rasterisers put an anti-aliased glyph edge a pixel apart, which is no difference
    // a reader sees (docs/pdf.md "Page images"). Measured: mean 1.3, 0.06% of blocks differing.
    const independent = blocks(ghostscriptPage(pdf, 1, 96), 4);
    const diff = difference(blocks(drawn, 4), independent);
    expect(diff.mean).toBeLessThan(2);
    expect(diff.differing).toBeLessThan(0.005);
    // The bound tells pages apart: a blank page is far outside it (mean ~3.2, ~2% of blocks).
    const blank = { ...independent, rgb: new Uint8Array(independent.rgb.length).fill(255) };
    expect(difference(blank, independent).differing).toBeGreaterThan(0.01);
  });

  test("the default is a PNG 800 pixels wide; jpeg and webp are what they say", async () => {
    const png = decodePng(new Uint8Array(await (await image(`/v1/renders/${invoice.id}/pages/1`)).arrayBuffer()));
    expect([png.width, png.height]).toEqual([800, 1133]);
    const jpeg = await image(`/v1/renders/${invoice.id}/pages/1?format=jpeg&width=400`);
    expect(jpeg.headers.get("content-type")).toBe("image/jpeg");
    const small = jpegSize(new Uint8Array(await jpeg.arrayBuffer()));
    expect(small.width).toBe(400);
    expect(Math.abs(small.height - 1133 / 2)).toBeLessThanOrEqual(1);
    const webp = await image(`/v1/renders/${invoice.id}/pages/1?format=webp&width=200`);
    expect(webp.headers.get("content-type")).toBe("image/webp");
    expect(decodeWebp(new Uint8Array(await webp.arrayBuffer())).width).toBe(200);
  });

  test("a second ask is served from the store: kept once, answered even with the PDF's file gone", async () => {
    const first = await image(`/v1/renders/${invoice.id}/pages/1?width=321`);
    const bytes = new Uint8Array(await first.arrayBuffer());
    const rows = await t.server.store.all<{ image_sha256: string }>("SELECT image_sha256 FROM page_images WHERE variant = 'png:w321'");
    expect(rows).toHaveLength(1);
    const pdfSha = (await t.server.store.get<{ output_sha256: string }>("SELECT output_sha256 FROM renders WHERE id = $id", { id: invoice.id }))!.output_sha256;
    // Through the file store: under DATA_DIR, or the bucket on the PostgreSQL pass.
    const saved = (await t.server.files.read("outputs", pdfSha))!;
    await t.server.files.delete("outputs", pdfSha);
    try {
      const second = await image(`/v1/renders/${invoice.id}/pages/1?width=321`);
      expect(second.status).toBe(200);
      expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
      expect(new Uint8Array(await second.arrayBuffer())).toEqual(bytes);
    } finally {
      await t.server.files.put("outputs", "test", saved);
    }
  });

  test("result.pageImageUrl is a signed address with {n}: any page, any size, no key; a changed token is 403", async () => {
    const render = ok(await t.call(`/v1/renders/${invoice.id}`, { key }), 200);
    expect(render.result.pageImageUrl).toContain("/pages/{n}?token=");
    const address = local(t, render.result.pageImageUrl.replace("{n}", "1")) + "&format=jpeg&width=120";
    const res = await fetch(address);
    expect(res.status).toBe(200);
    expect(jpegSize(new Uint8Array(await res.arrayBuffer())).width).toBe(120);
    expect((await fetch(address.replace(/token=\d+\./, "token=1."))).status).toBe(403);
    expect((await fetch(local(t, render.result.pageImageUrl.replace("{n}", "2")))).status).toBe(404);
  });

  test("bad asks: 400 naming the parameter, 404 for a page or render that is not there, 401 without a key", async () => {
    const bad = async (query: string, path: string) => {
      const res = ok(await t.call(`/v1/renders/${invoice.id}/pages/1${query}`, { key }), 400);
      expect(res.error.details[0].path).toBe(path);
    };
    await bad("?width=15", "/width");
    await bad("?width=4001", "/width");
    await bad("?dpi=601", "/dpi");
    await bad("?dpi=17", "/dpi");
    await bad("?width=100&dpi=100", "/dpi");
    await bad("?format=gif", "/format");
    await bad("?width=abc", "/width");
    await bad("?size=3", "/size");
    expect(ok(await t.call(`/v1/renders/${invoice.id}/pages/0`, { key }), 400).error.details[0].path).toBe("/n");
    expect(ok(await t.call(`/v1/renders/${invoice.id}/pages/2`, { key }), 404).error.message).toContain("has 1 page");
    ok(await t.call(`/v1/renders/rnd_nothing/pages/1`, { key }), 404);
    expect((await image(`/v1/renders/${invoice.id}/pages/1`, null)).status).toBe(401);
    const other = await t.makeWorkspace("Elsewhere");
    ok(await t.call(`/v1/renders/${invoice.id}/pages/1`, { key: await t.makeKey(other.id, ["render:read"]) }), 404);
  });

  test("a PDF only its user password opens is 409; one with an owner password alone is drawn", async () => {
    const locked = ok(await t.call("/v1/renders?wait=30", { key, body: { html: "<h1>Payslip</h1>", pdf: { password: { user: "open", owner: "own" } } } }), 200);
    expect(ok(await t.call(`/v1/renders/${locked.id}/pages/1`, { key }), 409).error.message).toContain("user password");
    const guarded = ok(await t.call("/v1/renders?wait=30", { key, body: { html: "<h1>Payslip</h1>", pdf: { password: { owner: "own" } } } }), 200);
    expect((await image(`/v1/renders/${guarded.id}/pages/1?width=100`)).status).toBe(200);
  });
});

describe("output: images as a render's output", () => {
  test("result.images lists the pages asked for, each a signed address of the image at the dpi asked", async () => {
    const html = "<style>@page{size:600px 315px;margin:0}body{margin:0}</style><div style='height:315px;background:#1f4e8c'>Card 1</div><div style='height:315px'>Card 2</div>";
    const render = ok(await t.call("/v1/renders?wait=30", { key, body: { html, output: { format: "webp", pages: [2, 1] } } }), 200);
    expect(render.result.pages).toBe(2);
    expect(render.result.images.map((i: any) => i.page)).toEqual([2, 1]);
    // Drawn before the render succeeded: kept already.
    expect((await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM page_images WHERE variant = 'webp:d96'"))!.n).toBe(2);
    const card = decodeWebp(new Uint8Array(await (await fetch(local(t, render.result.images[1].url))).arrayBuffer()));
    expect([card.width, card.height]).toEqual([600, 315]);
    // The first card is blue.
    expect(card.rgb[(100 * 600 + 300) * 3 + 2]).toBeGreaterThan(100);
    const all = ok(await t.call("/v1/renders?wait=30", { key, body: { html, output: { format: "png", dpi: 48 } } }), 200);
    expect(all.result.images.map((i: any) => i.page)).toEqual([1, 2]);
    expect(decodePng(new Uint8Array(await (await fetch(local(t, all.result.images[0].url))).arrayBuffer())).width).toBe(300);
  });

  test("a page the PDF does not have fails the render at /output/pages/N; a bad output is 400 at its field", async () => {
    const res = ok(await t.call("/v1/renders?wait=30", { key, body: { html: "<p>one page</p>", output: { format: "png", pages: [1, 3] } } }), 400);
    expect(res.error.message).toContain("/output/pages/1");
    expect(res.renderId ?? res.error.renderId).toBeDefined();
    expect(ok(await t.call("/v1/renders", { key, body: { html: "<p>x</p>", output: { format: "gif" } } }), 400).error.details[0].path).toBe("/output/format");
    expect(ok(await t.call("/v1/renders", { key, body: { html: "<p>x</p>", output: { format: "png", dpi: 601 } } }), 400).error.details[0].path).toBe("/output/dpi");
    expect(ok(await t.call("/v1/renders/batch", { key, body: { items: [{ html: "<p>x</p>", output: { format: "png", pages: [0] } }] } }), 400).error.details[0].path).toBe("/items/0/output/pages/0");
  });
});
