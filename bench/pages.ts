/**
 * bench/pages: what page images and PDF operations cost (issue 30, docs/performance.md "Page images and PDF operations")
 * on a 10-page report printed by the compiled binary: the PDF's own print time, then each page drawn as an image at 96
 * and 150 dpi (a first ask draws it, a second is served from the store), then each operation on that PDF — the
 * worker's time (startedAt → finishedAt) and the POST ?wait=60 round trip — medians of `--runs`. fill runs on the same
 * report with a text field added to each page by pdf-lib (uploaded as a `pdf` asset), sign with a fresh RSA-2048
 * certificate.
 *
 *   bun bench/pages.ts [--runs 5] [--binary dist/renderd]
 */
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { PDFDocument } from "pdf-lib";
import { makePkcs12 } from "../test/pdf/certs";
import { REPORT_TEMPLATE, reportData } from "./documents";
import { median } from "./report";
import { api, publishTemplate, renderOnce, startServer, type Server } from "./server";

const { values } = parseArgs({ options: { runs: { type: "string", default: "5" }, binary: { type: "string", default: "dist/renderd" } } });
const RUNS = Number(values.runs);
// 420 lines of the bench's report print on 10 A4 pages.
const ROWS = 420;

const ms = (x: number) => `${x.toFixed(1)} ms`;

async function timed(server: Server, path: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(server.base + path, { headers: { "x-api-key": server.key } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return performance.now() - t;
}

/** download answers a render's stored PDF. */
async function download(server: Server, id: string): Promise<Uint8Array> {
  const render = await api<{ result: { downloadUrl: string } }>(server, "GET", `/v1/renders/${id}`);
  return new Uint8Array(await (await fetch(render.result.downloadUrl)).arrayBuffer());
}

/** withFields adds an AcroForm text field `note<n>` to each page, so fill has a real form of the report's size. */
async function withFields(pdf: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const doc = await PDFDocument.load(pdf);
  const form = doc.getForm();
  doc.getPages().forEach((page, i) => form.createTextField(`note${i + 1}`).addToPage(page, { x: 40, y: 20, width: 300, height: 20 }));
  return new Uint8Array(await doc.save());
}

/** uploadPdf registers and uploads PDF bytes as a `pdf` asset and answers its id. */
async function uploadPdf(server: Server, filename: string, bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const reg = await api<{ id: string; uploadUrl: string; uploadHeaders: Record<string, string> }>(server, "POST", "/v1/assets", { kind: "pdf", filename, mediaType: "application/pdf", size: bytes.byteLength, sha256 });
  const up = await fetch(reg.uploadUrl, { method: "PUT", body: bytes, headers: reg.uploadHeaders });
  if (!up.ok) throw new Error(`upload: ${up.status} ${await up.text()}`);
  return reg.id;
}

const server = await startServer({ binary: resolve(import.meta.dir, "..", values.binary!), workers: "1" });
try {
  const templateId = await publishTemplate(server, "Report", REPORT_TEMPLATE);
  const body = JSON.stringify({ templateId, data: reportData(ROWS) });
  await renderOnce(server, body);
  const prints = [];
  for (let i = 0; i < RUNS; i++) prints.push(await renderOnce(server, body));
  const { id, pages } = prints.at(-1)!;
  if (pages !== 10) throw new Error(`the report printed on ${pages} pages, not 10: change ROWS`);
  console.log(`10-page report: print (startedAt → finishedAt) median ${ms(median(prints.map((p) => p.print)))}, POST→200 ${ms(median(prints.map((p) => p.ms)))}\n`);

  console.log("| page image (10 pages, each drawn once) | first ask, per page | second ask (from the store), per page | bytes per page |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const [format, dpi] of [["png", 96], ["png", 150], ["jpeg", 96], ["jpeg", 150], ["webp", 96], ["webp", 150]] as const) {
    const first: number[] = [];
    const second: number[] = [];
    let bytes = 0;
    for (let page = 1; page <= 10; page++) {
      const path = `/v1/renders/${id}/pages/${page}?format=${format}&dpi=${dpi}`;
      first.push(await timed(server, path));
      second.push(await timed(server, path));
      bytes += (await (await fetch(server.base + path, { headers: { "x-api-key": server.key } })).arrayBuffer()).byteLength;
    }
    console.log(`| ${format} ${dpi} dpi | ${ms(median(first))} | ${ms(median(second))} | ${Math.round(bytes / 10 / 1024)} KiB |`);
  }

  const formId = await uploadPdf(server, "report-form.pdf", await withFields(await download(server, id)));
  const cert = await api<{ id: string }>(server, "POST", "/v1/certificates", { name: "Bench", pkcs12: Buffer.from(makePkcs12()).toString("base64"), password: "secret" });
  const operations: Record<string, Record<string, unknown>> = {
    merge: { operation: "merge", inputs: [{ renderId: id }, { renderId: id }] },
    split: { operation: "split", inputs: [{ renderId: id }], ranges: ["1-5", "6-"] },
    rotate: { operation: "rotate", inputs: [{ renderId: id }], angle: 90 },
    stamp: { operation: "stamp", inputs: [{ renderId: id }], text: "PAID" },
    watermark: { operation: "watermark", inputs: [{ renderId: id }], text: "DRAFT" },
    flatten: { operation: "flatten", inputs: [{ renderId: id }] },
    compress: { operation: "compress", inputs: [{ renderId: id }] },
    metadata: { operation: "metadata", inputs: [{ renderId: id }], metadata: { title: "Report", author: "Bench" } },
    encrypt: { operation: "encrypt", inputs: [{ renderId: id }], password: { user: "u", owner: "o" } },
    "fill (10 fields)": { operation: "fill", inputs: [{ assetId: formId }], fields: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`note${i + 1}`, `Checked, page ${i + 1}`])) },
    sign: { operation: "sign", inputs: [{ renderId: id }], signature: { certificateId: cert.id, reason: "Bench" } },
  };
  console.log("\n| operation on the 10-page PDF | worker (startedAt → finishedAt) | POST ?wait=60 → 200 | result bytes |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const [name, request] of Object.entries(operations)) {
    const worker: number[] = [];
    const total: number[] = [];
    let bytes = 0;
    for (let i = 0; i < RUNS + 1; i++) {
      const t = performance.now();
      const op = await api<{ startedAt: string; finishedAt: string; status: string; result: { bytes: number } }>(server, "POST", "/v1/pdf-operations?wait=60", request);
      if (op.status !== "succeeded") throw new Error(`${name}: ${op.status}`);
      // The first run of each warms its code and its tool's files.
      if (i === 0) continue;
      total.push(performance.now() - t);
      worker.push(Date.parse(op.finishedAt) - Date.parse(op.startedAt));
      bytes = op.result.bytes;
    }
    console.log(`| ${name} | ${ms(median(worker))} | ${ms(median(total))} | ${Math.round(bytes / 1024)} KiB |`);
  }
} finally {
  await server.stop();
}
