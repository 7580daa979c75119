/**
 * authoring: what docs/authoring.md promises, through the real server and Chromium — the starters (listed, made into
 * templates, and each one's PDF with its sample data whole on the page), sample data kept with a template, computed
 * values checked on save and stopped when they run away (while /health and other renders go on), Tailwind classes
 * that take effect in the PDF, documents and templates alike, and the worked invoice run as written.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ok, PUBLIC_URL, startTestServer, type TestServer } from "../harness";
import { local } from "../fixtures/assets";
import { poppler } from "../render/poppler";
import { loadPdfJs } from "../../src/modules/template-conversions/pdfjs";
import { EXPRESSION_LIMITS } from "../../src/render/compile/expressions";

let t: TestServer;
let key: string;

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "2" });
  key = await t.makeKey(t.defaultWorkspaceId, ["template:read", "template:write", "template:publish", "render:create", "render:read", "asset:manage"]);
});
afterAll(() => t.stop());

// Renders are allowed so many a minute on the manual clock: every test starts in a fresh minute.
beforeEach(() => t.clock.advance(61_000));

async function pdfOf(path: string, body: unknown): Promise<Uint8Array> {
  const res = await fetch(t.url + path, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(body) });
  expect({ status: res.status, type: res.headers.get("content-type") }).toEqual({ status: 200, type: "application/pdf" });
  return new Uint8Array(await res.arrayBuffer());
}

/** rendered renders with ?wait and answers the render and its PDF. */
async function rendered(body: unknown): Promise<{ render: any; pdf: Uint8Array }> {
  const render = ok(await t.call("/v1/renders?wait=30", { key, body }), 200);
  const res = await fetch(local(t, render.result.downloadUrl));
  return { render, pdf: new Uint8Array(await res.arrayBuffer()) };
}

/** outsideThePage lists the text a PDF places beyond its pages' edges (pdf.js reads text wherever it is drawn). */
async function outsideThePage(pdf: Uint8Array): Promise<string[]> {
  const pdfjs = await loadPdfJs();
  const doc = await pdfjs.getDocument({ data: pdf.slice(), isEvalSupported: false, useSystemFonts: false, verbosity: 0 }).promise;
  const outside: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const [left, bottom, right, top] = page.view as number[];
    for (const item of (await page.getTextContent()).items) {
      // Upright text only: the diagonal TEST mark of a preview is drawn across the page on purpose.
      if (!("str" in item) || item.str.trim() === "" || item.transform[1] !== 0 || item.transform[2] !== 0) continue;
      const [x, y] = [item.transform[4] as number, item.transform[5] as number];
      if (x < left! || y < bottom! || x + item.width > right! + 0.5 || y + item.height > top! + 0.5) outside.push(`page ${n}: ${item.str}`);
    }
  }
  await doc.destroy();
  return outside;
}

const pageText = (pdf: Uint8Array) => poppler(pdf, (file) => ["pdftotext", "-layout", file, "-"]);

describe("starters", () => {
  test("GET /v1/template-starters answers the five, each a complete draft; template:read is enough", async () => {
    const readKey = await t.makeKey(t.defaultWorkspaceId, ["template:read"]);
    const list = ok(await t.call("/v1/template-starters", { key: readKey }), 200);
    expect(list.items.map((s: any) => s.id)).toEqual(["invoice", "receipt", "letter", "report", "certificate"]);
    for (const s of list.items) expect(Object.keys(s.source)).toEqual(expect.arrayContaining(["content", "dataSchema", "sampleData", "stylesheet", "page", "footer"]));
    expect((await t.call("/v1/template-starters", { key: await t.makeKey(t.defaultWorkspaceId, ["render:read"]) })).status).toBe(403);
  });

  test("POST /v1/templates {name, starter} makes a template of the starter's draft; fields sent beside it replace the starter's", async () => {
    const made = ok(await t.call("/v1/templates", { key, body: { name: "March invoices", starter: "invoice" } }), 201);
    const starter = ok(await t.call("/v1/template-starters", { key }), 200).items[0];
    expect(made.draft).toEqual(starter.source);
    expect(made.description).toBe(starter.description);
    const letter = ok(await t.call("/v1/templates", { key, body: { name: "Letter", starter: "letter", description: "Ours", page: { size: "Letter" } } }), 201);
    expect(letter.description).toBe("Ours");
    expect(letter.draft.page).toEqual({ size: "Letter" });
    const wrong = await t.call("/v1/templates", { key, body: { name: "x", starter: "memo" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details[0].path).toBe("/starter");
  });

  test("GET /v1/template-starters/{id}/pdf answers the starter printed with its sample data, once per process, as no render", async () => {
    const readKey = await t.makeKey(t.defaultWorkspaceId, ["template:read"]);
    const renders = async () => (await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM renders"))!.n;
    const before = await renders();
    const get = () => fetch(`${t.url}/v1/template-starters/invoice/pdf`, { headers: { "x-api-key": readKey } });
    const first = await get();
    expect([first.status, first.headers.get("content-type")]).toEqual([200, "application/pdf"]);
    const pdf = new Uint8Array(await first.arrayBuffer());
    expect(pageText(pdf)).toContain("Northwind Studio GmbH");
    // renderd's own sample: no TEST mark, no render, and the same bytes the second time.
    expect(poppler(pdf, (f) => ["pdftotext", "-raw", f, "-"]).replace(/\s/g, "")).not.toContain("TEST");
    expect(new Uint8Array(await (await get()).arrayBuffer())).toEqual(pdf);
    expect(await renders()).toBe(before);
    const unknown = await fetch(`${t.url}/v1/template-starters/memo/pdf`, { headers: { "x-api-key": readKey } });
    expect(unknown.status).toBe(400);
  });

  test.each(["invoice", "receipt", "letter", "report", "certificate"])("%s: its preview with the sample data is one page, all of its text on the page", async (id) => {
    const template = ok(await t.call("/v1/templates", { key, body: { name: id, starter: id } }), 201);
    const pdf = await pdfOf(`/v1/templates/${template.id}/preview`, {});
    expect(poppler(pdf, (file) => ["pdfinfo", file])).toMatch(/Pages:\s+1\n/);
    expect(await outsideThePage(pdf)).toEqual([]);
    const text = pageText(pdf);
    const sample = template.draft.sampleData;
    // The sample data is what was rendered, the footer too.
    const expected: Record<string, (sample: any) => string[]> = {
      invoice: (s) => [s.number, s.customer.name, "Total due", "€6,235.60", "Page 1 of 1"],
      receipt: (s) => [s.shop.name, "€67.10", "Thank you"],
      letter: (s) => [s.recipient.name, "Yours sincerely,", "Page 1 of 1"],
      report: (s) => [s.title, "Norway", "€1,840,000", "Page 1 of 1"],
      certificate: (s) => [s.recipient, s.course, s.certificateId],
    };
    for (const words of expected[id]!(sample)) expect(text).toContain(words);
  });
});

describe("sample data", () => {
  const schema = { type: "object", required: ["lines"], properties: { lines: { type: "array", items: { type: "object", properties: { quantity: { type: "number" } } } } } };
  const content = { type: "repeat", source: { path: ["lines"] }, children: [{ type: "text", text: { path: ["quantity"], prefix: "qty " } }] };

  test("is checked against the data schema when saved: 422 DATA_INVALID at its JSON pointer, also when the schema changes", async () => {
    const bad = await t.call("/v1/templates", { key, body: { name: "s", content, dataSchema: schema, sampleData: { lines: [{ quantity: 1 }, { quantity: "2" }] } } });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: "DATA_INVALID", details: [{ path: "/sampleData/lines/1/quantity", message: "must be a number" }] });
    const made = ok(await t.call("/v1/templates", { key, body: { name: "s", content, dataSchema: schema, sampleData: { lines: [{ quantity: 1 }] } } }), 201);
    const stricter = { ...schema, required: ["lines", "currency"] };
    const patched = await t.call(`/v1/templates/${made.id}`, { key, method: "PATCH", body: { dataSchema: stricter } });
    expect(patched.body.error).toMatchObject({ code: "DATA_INVALID", details: [{ path: "/sampleData/currency", message: "is required" }] });
  });

  test("is at most 1 MB of JSON", async () => {
    const big = { lines: [], note: "x".repeat(1_000_000) };
    const res = await t.call("/v1/templates", { key, body: { name: "s", content, sampleData: big } });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ path: "/sampleData", message: expect.stringContaining("at most 1000000") });
  });

  test("is kept by published versions, and a preview without data renders it", async () => {
    const made = ok(await t.call("/v1/templates", { key, body: { name: "s", content, dataSchema: schema, sampleData: { lines: [{ quantity: 7 }] } } }), 201);
    ok(await t.call(`/v1/templates/${made.id}/publish`, { key, method: "POST" }), 201);
    ok(await t.call(`/v1/templates/${made.id}`, { key, method: "PATCH", body: { sampleData: { lines: [{ quantity: 8 }] } } }), 200);
    expect(ok(await t.call(`/v1/templates/${made.id}/versions/1`, { key }), 200).source.sampleData).toEqual({ lines: [{ quantity: 7 }] });
    const preview = async (body: unknown) => (await t.call(`/v1/templates/${made.id}/preview?format=html`, { key, body })).body as string;
    expect(await preview({})).toContain("<div>qty 8</div>");
    expect(await preview({ version: 1 })).toContain("<div>qty 7</div>");
    expect(await preview({ data: { lines: [{ quantity: 9 }] } })).toContain("<div>qty 9</div>");
    // A render is not a preview: without data it renders {} (here: data invalid), never the sample.
    const render = await t.call("/v1/renders", { key, body: { templateId: made.id, test: true } });
    expect(render.body.error?.code).toBe("DATA_INVALID");
  });
});

describe("computed values", () => {
  test("an expression that does not parse is 422 TEMPLATE_INVALID at its pointer, naming the position", async () => {
    const content = { type: "container", children: [{ type: "text", text: "Total" }, { type: "text", text: { expression: "$sum(lines.(quantity * price)" } }] };
    const res = await t.call("/v1/templates", { key, body: { name: "e", content } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("TEMPLATE_INVALID");
    expect(res.body.error.details).toEqual([{ path: "/content/children/1/text/expression", message: expect.stringMatching(/^is not a valid JSONata expression: .* \(at character \d+\)$/) }]);
  });

  test("an expression that cannot be evaluated on the render's data is 422 DATA_INVALID at its pointer", async () => {
    const content = { type: "table", source: { path: ["lines"] }, columns: [{ id: "amount", header: "Amount", value: { expression: "quantity * price" } }] };
    const template = ok(await t.call("/v1/templates", { key, body: { name: "e", content } }), 201);
    const res = await t.call("/v1/renders", { key, body: { templateId: template.id, test: true, data: { lines: [{ quantity: "two", price: 3 }] } } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: "DATA_INVALID", details: [{ path: "/content/columns/0/value/expression", message: expect.stringContaining("must evaluate to a number") }] });
  });

  test("a runaway expression fails its render with LIMIT_EXCEEDED within seconds, while /health and another render go on", async () => {
    const endless = { type: "text", text: { expression: "($loop := function($n) { $loop($n + 1) }; $loop(0))" } };
    const template = ok(await t.call("/v1/templates", { key, body: { name: "runaway", content: endless } }), 201);
    let polling = true;
    let slowest = 0;
    const health = (async () => {
      while (polling) {
        const started = performance.now();
        expect((await fetch(`${t.url}/health`)).status).toBe(200);
        slowest = Math.max(slowest, performance.now() - started);
        await Bun.sleep(20);
      }
    })();
    const started = performance.now();
    const [runaway, other] = await Promise.all([
      t.call("/v1/renders?wait=30", { key, body: { templateId: template.id, test: true } }),
      (async () => {
        await Bun.sleep(200);
        return t.call("/v1/renders?wait=30", { key, body: { document: { type: "text", text: "meanwhile" } } });
      })(),
    ]);
    const took = performance.now() - started;
    polling = false;
    await health;
    expect(runaway.status).toBe(413);
    expect(runaway.body.error).toMatchObject({ code: "LIMIT_EXCEEDED", details: [{ path: "/content/text/expression" }] });
    expect(took).toBeLessThan(EXPRESSION_LIMITS.timeMs + 3000);
    expect(other.body.status).toBe("succeeded");
    expect(slowest).toBeLessThan(500);
  });
});

describe("Tailwind classes", () => {
  /** bluePixels counts the strongly blue pixels of a PDF's first page (drawn at 30 dpi). */
  function bluePixels(pdf: Uint8Array): number {
    const ppm = Buffer.from(poppler(pdf, (file) => ["bash", "-c", `pdftoppm -r 30 -f 1 -l 1 ${file} | base64 -w0`]), "base64");
    const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 30).toString("latin1"))!;
    let blue = 0;
    for (let i = header[0].length; i + 2 < ppm.length; i += 3) if (ppm[i + 2]! > 150 && ppm[i]! < 90 && ppm[i + 1]! < 130) blue++;
    return blue;
  }

  test("tw on a document's nodes takes effect in the PDF: size, weight and colour; an unknown class is a warning", async () => {
    const document = {
      type: "container",
      tw: "p-8",
      children: [
        { type: "text", tagName: "div", text: "Invoice", tw: "text-4xl font-bold text-blue-700 not-a-class" },
        { type: "text", tagName: "div", text: "plain", tw: "mt-2" },
      ],
    };
    const { render, pdf } = await rendered({ document });
    expect(render.warnings).toEqual([{ reason: "unknown_class", className: "not-a-class", path: "/document/children/0/tw" }]);
    const words = [...poppler(pdf, (file) => ["pdftotext", "-bbox", file, "-"]).matchAll(/yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">(\w+)</g)];
    const height = (word: string) => words.filter((w) => w[3] === word).map((w) => Number(w[2]) - Number(w[1]))[0]!;
    expect(height("Invoice") / height("plain")).toBeGreaterThan(2);
    expect(poppler(pdf, (file) => ["pdffonts", file])).toMatch(/Bold/);
    expect(bluePixels(pdf)).toBeGreaterThan(5);
  });

  test("tw on a template's nodes takes effect the same way (an extension of the spec's templates)", async () => {
    const content = { type: "container", tw: "p-8", children: [{ type: "text", text: "Invoice", tw: "text-4xl font-bold text-blue-700" }, { type: "text", text: "plain" }] };
    const template = ok(await t.call("/v1/templates", { key, body: { name: "tw", content } }), 201);
    const { render, pdf } = await rendered({ templateId: template.id, test: true });
    expect(render.warnings).toBeUndefined();
    expect(poppler(pdf, (file) => ["pdffonts", file])).toMatch(/Bold/);
    expect(bluePixels(pdf)).toBeGreaterThan(5);
  });
});

test("documents and templates alike: a text node prints in the same font at the same place, on the same A4 sheet", async () => {
  const template = ok(await t.call("/v1/templates", { key, body: { name: "alike", content: { type: "text", text: "Same words here" } } }), 201);
  // Both test renders, so both carry the TEST mark; what is compared is the word "Same" and the sheet.
  const fromTemplate = (await rendered({ templateId: template.id, test: true })).pdf;
  const fromDocument = (await rendered({ document: { type: "text", text: "Same words here" }, test: true })).pdf;
  const first = (pdf: Uint8Array) => {
    const bbox = poppler(pdf, (file) => ["pdftotext", "-bbox", file, "-"]);
    return [/<page width="([\d.]+)" height="([\d.]+)">/.exec(bbox)!.slice(1), /<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="[-\d.]+" yMax="[-\d.]+">Same</.exec(bbox)!.slice(1)];
  };
  const fonts = (pdf: Uint8Array) => poppler(pdf, (file) => ["pdffonts", file]).split("\n").slice(2).map((line) => line.split(/\s+/)[0]!.replace(/^[A-Z]{6}\+/, ""));
  expect(first(fromDocument)).toEqual(first(fromTemplate));
  expect(fonts(fromDocument)).toEqual(fonts(fromTemplate));
});

test("docs/authoring.md's worked invoice runs as written: logo, template, preview, publish, render — and the PDF has the computed totals and the footer", async () => {
  const page = readFileSync(resolve(import.meta.dir, "../../docs/authoring.md"), "utf8");
  const section = /^## A worked invoice\n([\s\S]*?)^## /m.exec(page)?.[1] ?? "";
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  expect(blocks.length).toBe(5);
  const script = blocks
    .join("\n")
    .replace("export RENDERD=http://localhost:8080", `export RENDERD=${t.url}`)
    .replace("export KEY=rd_…", `export KEY=${key}`);
  expect(script).not.toContain("…");
  const work = mkdtempSync(join(tmpdir(), "renderd-authoring-"));
  try {
    // The upload and download addresses name PUBLIC_URL's host; curl is pointed at the test server for it.
    const server = new URL(t.url);
    writeFileSync(join(work, ".curlrc"), `connect-to = ${new URL(PUBLIC_URL).hostname}:80:${server.hostname}:${server.port}\n`);
    // Spawned, not spawnSync: the server answering the script runs in this process.
    const run = Bun.spawn(["bash", "-e", "-o", "pipefail", "-c", script], { cwd: work, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work, CURL_HOME: work }, stdout: "pipe", stderr: "pipe" });
    const [exit, stderr] = await Promise.all([run.exited, new Response(run.stderr).text()]);
    expect({ exit, stderr }).toEqual({ exit: 0, stderr: "" });
    const rendered = JSON.parse(readFileSync(join(work, "rendered.json"), "utf8"));
    expect(rendered).toMatchObject({ status: "succeeded", filename: "INV-2026-0042.pdf" });
    expect(rendered.warnings).toBeUndefined();
    const pdf = new Uint8Array(readFileSync(join(work, "invoice.pdf")));
    const text = pageText(pdf).replace(/\s+/g, " ");
    for (const words of ["INVOICE", "No. INV-2026-0042", "March 2, 2026", "Acme Corporation", "€2,400.00", "€90.00", "Subtotal €4,890.00", "VAT 19% €929.10", "Total €5,819.10", "Invoice INV-2026-0042", "Page 1 of 1"])
      expect(text).toContain(words);
    expect(await outsideThePage(pdf)).toEqual([]);
    // The preview shows the sample data.
    expect(pageText(new Uint8Array(readFileSync(join(work, "preview.pdf"))))).toContain("Sample Customer Ltd");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
