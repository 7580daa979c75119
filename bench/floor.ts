/**
 * floor: the reference figures a render benchmark is read against, for one realistic 1-page invoice —
 * (a) the floor: one warm page, setContent + pdf, nothing else; (b) a new tab per document in one browser;
 * (c) a fresh browser per document — and RenderPool.render() at concurrency 1, 2 and 8.
 * Run: `bun bench/floor.ts [documents]`. Figures are recorded in docs/pool.md. Never run as a test.
 */
import { cpus } from "node:os";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import { chromiumArgs } from "../src/render/browser";
import { assetUrl, newAssetScope, parseAssetUrl } from "../src/render/assets";
import { RenderPool, type AssetLoader, type RenderJob } from "../src/render/pool";

/** CHROMIUM is the browser every bench starts (CHROMIUM_PATH, as the server reads it). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** CONTEXT is the page setup the pool uses, so the references differ from it only in what they measure. */
export const CONTEXT: BrowserContextOptions = { javaScriptEnabled: false, serviceWorkers: "block", offline: true };

/** PdfOptions are playwright's page.pdf options. */
export type PdfOptions = NonNullable<Parameters<Page["pdf"]>[0]>;

/** PDF_OPTIONS are the pool's print options for an A4 document. */
export const PDF_OPTIONS: PdfOptions = { format: "A4", printBackground: true, tagged: false, outline: false };

/** INVOICE_LINES are the invoice's lines: text, quantity, unit price (bench/render.ts fills its template with them). */
export const INVOICE_LINES: [string, number, number][] = [
  ["Document rendering appliance — annual licence", 1, 4800],
  ["Installation and configuration (hours)", 6, 120],
  ["Template design workshop (days)", 2, 950],
  ["Custom invoice template", 1, 600],
  ["Custom delivery note template", 1, 450],
  ["Priority support, 12 months", 1, 1800],
  ["Additional render workers (per core)", 4, 240],
  ["Webhook integration review", 1, 320],
  ["Training session, remote (hours)", 3, 110],
  ["Archive migration, per 10,000 documents", 5, 75],
];

const money = (n: number) => n.toLocaleString("en-GB", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** invoiceHtml is a realistic one-page invoice: letterhead, addresses, a table of ten lines, totals and terms, styled with CSS; with a logo URL, a logo too. */
export function invoiceHtml(number = "INV-2026-00042", logoUrl?: string): string {
  const net = INVOICE_LINES.reduce((sum, [, qty, price]) => sum + qty * price, 0);
  const vat = net * 0.2;
  const rows = INVOICE_LINES.map(
    ([text, qty, price], i) =>
      `<tr><td class="n">${i + 1}</td><td>${text}</td><td class="r">${qty}</td><td class="r">${money(price)}</td><td class="r">${money(qty * price)}</td></tr>`,
  ).join("");
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Invoice ${number}</title><style>
@page { size: A4; margin: 18mm 16mm; }
html, body { margin: 0; padding: 0; }
body { font-family: "DejaVu Sans", "Liberation Sans", sans-serif; font-size: 10pt; color: #1d2430; }
header { display: flex; justify-content: space-between; align-items: flex-start; border-bottom: 3px solid #2f5fd0; padding-bottom: 10px; }
.brand { font-size: 20pt; font-weight: 700; color: #2f5fd0; letter-spacing: .5px; }
.brand small { display: block; font-size: 8pt; font-weight: 400; color: #667; letter-spacing: 0; }
.meta { text-align: right; font-size: 9pt; }
.meta h1 { margin: 0 0 4px; font-size: 16pt; text-transform: uppercase; color: #444; }
.parties { display: flex; gap: 24px; margin: 18px 0; }
.parties div { flex: 1; background: #f3f6fc; border-radius: 4px; padding: 8px 10px; line-height: 1.45; }
.parties b { display: block; font-size: 8pt; text-transform: uppercase; color: #2f5fd0; margin-bottom: 2px; }
table { width: 100%; border-collapse: collapse; }
th { background: #2f5fd0; color: #fff; font-weight: 600; text-align: left; padding: 6px 8px; font-size: 9pt; }
td { padding: 6px 8px; border-bottom: 1px solid #dde3ee; vertical-align: top; }
tr:nth-child(even) td { background: #fafbfe; }
.r { text-align: right; white-space: nowrap; } .n { width: 20px; color: #889; }
.totals { margin-left: auto; width: 45%; margin-top: 12px; }
.totals td { border: none; padding: 3px 8px; }
.totals tr.grand td { font-size: 12pt; font-weight: 700; border-top: 2px solid #2f5fd0; padding-top: 6px; }
footer { margin-top: 28px; font-size: 8pt; color: #667; border-top: 1px solid #dde3ee; padding-top: 8px; line-height: 1.5; }
</style></head><body>
<header><div class="brand">${logoUrl ? `<img src="${logoUrl}" width="120" height="32" alt=""><br>` : ""}Northwind Rendering Ltd<small>12 Harbour Street · Bristol BS1 4RN · VAT GB 123 4567 89</small></div>
<div class="meta"><h1>Invoice</h1>No. <b>${number}</b><br>Issued 15 January 2026<br>Due 14 February 2026</div></header>
<section class="parties"><div><b>Bill to</b>Contoso Logistics GmbH<br>Attn. Accounts Payable<br>Speicherstraße 8<br>20457 Hamburg, Germany</div>
<div><b>Ship to</b>Contoso Logistics GmbH<br>Warehouse 3, Gate B<br>Am Kaiserkai 22<br>20457 Hamburg, Germany</div>
<div><b>Reference</b>PO 4500-778123<br>Contract NW-2025-17<br>Customer no. C-00931<br>Project “Docs 2026”</div></section>
<table><thead><tr><th class="n">#</th><th>Description</th><th class="r">Qty</th><th class="r">Unit (GBP)</th><th class="r">Amount (GBP)</th></tr></thead>
<tbody>${rows}</tbody></table>
<table class="totals"><tr><td>Net</td><td class="r">${money(net)}</td></tr><tr><td>VAT 20%</td><td class="r">${money(vat)}</td></tr>
<tr class="grand"><td>Total due</td><td class="r">GBP ${money(net + vat)}</td></tr></table>
<footer>Payment within 30 days to Northwind Rendering Ltd, IBAN GB29 NWBK 6016 1331 9268 19, BIC NWBKGB2L, quoting ${number}.
Late payments accrue interest at 8% above the Bank of England base rate. Thank you for your business.</footer>
</body></html>`;
}

/** INVOICE_HTML is the invoice every figure here is measured with. */
export const INVOICE_HTML = invoiceHtml();


const LOGO_SVG = new TextEncoder().encode(
  `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32"><rect width="120" height="32" rx="4" fill="#2f5fd0"/><text x="60" y="22" font-size="16" text-anchor="middle" fill="#fff" font-family="sans-serif">NORTHWIND</text></svg>`,
);

/** LOGO_ASSETS serves the invoice's logo (asset ast_logo, scoped or not), as the store would. */
export const LOGO_ASSETS: AssetLoader = async (url) => (parseAssetUrl(url)?.assetId === "ast_logo" ? { body: LOGO_SVG, contentType: "image/svg+xml" } : null);

/** plainInvoice is a job for INVOICE_HTML. */
export const plainInvoice = (): RenderJob => ({ html: INVOICE_HTML });

/** scopedLogoInvoice is a job as the worker makes one: a fresh asset scope, the logo URL in it. */
export function scopedLogoInvoice(): RenderJob {
  const assetScope = newAssetScope();
  return { html: invoiceHtml("INV-2026-00042", assetUrl("ast_logo", assetScope)), assets: LOGO_ASSETS, assetScope };
}

/** unscopedLogoInvoice is the same with an unscoped logo URL (raw HTML): each render costs the page a new Document. */
export const unscopedLogoInvoice = (): RenderJob => ({ html: invoiceHtml("INV-2026-00042", assetUrl("ast_logo")), assets: LOGO_ASSETS });

/** Figures summarises one series: latency percentiles in ms and documents per second over the wall time. */
export interface Figures {
  name: string;
  documents: number;
  p50: number;
  p95: number;
  docsPerSecond: number;
  /** Each document's milliseconds, sorted, and the series' wall time: what mergeFigures needs. */
  ms: number[];
  wallMs: number;
}

/** figures computes p50/p95 (nearest rank) and throughput from per-document milliseconds and the series' wall time. */
export function figures(name: string, ms: number[], wallMs: number): Figures {
  const sorted = [...ms].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { name, documents: ms.length, p50: rank(0.5), p95: rank(0.95), docsPerSecond: (ms.length * 1000) / wallMs, ms: sorted, wallMs };
}

/** mergeFigures joins series measured in blocks (interleaved with others, so that all see the same machine) into one. */
export function mergeFigures(name: string, parts: Figures[]): Figures {
  return figures(name, parts.flatMap((p) => p.ms), parts.reduce((sum, p) => sum + p.wallMs, 0));
}

/** launchBrowser starts Chromium the way the pool does. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs({ asRoot: process.getuid?.() === 0 }) });
}

/** series times n documents made by `one(caller)` after `warmUp` untimed ones per caller, with `concurrency` callers at once. */
async function series(name: string, n: number, warmUp: number, one: (caller: number) => Promise<unknown>, concurrency = 1): Promise<Figures> {
  for (let caller = 0; caller < concurrency; caller++) for (let i = 0; i < warmUp; i++) await one(caller);
  const ms: number[] = [];
  let left = n;
  const wall = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, caller) => {
      while (left-- > 0) {
        const t = performance.now();
        await one(caller);
        ms.push(performance.now() - t);
      }
    }),
  );
  return figures(concurrency > 1 ? `${name}, concurrency ${concurrency}` : name, ms, performance.now() - wall);
}

/** openPages opens `count` pages, each in its own context with the pool's setup; close() closes them. */
export async function openPages(browser: Browser, count = 1): Promise<{ pages: Page[]; close: () => Promise<void> }> {
  const contexts = await Promise.all(Array.from({ length: count }, () => browser.newContext(CONTEXT)));
  const pages = await Promise.all(contexts.map((context) => context.newPage()));
  return { pages, close: async () => void (await Promise.all(contexts.map((context) => context.close()))) };
}

/** floorOn prints `html` n times on open pages, all of them at once, after `warmUp` untimed prints on each. */
export function floorOn(pages: Page[], html: string, n: number, pdf: PdfOptions = PDF_OPTIONS, warmUp = 5): Promise<Figures> {
  const name = pages.length === 1 ? "(a) floor: one warm page" : `(a) floor: ${pages.length} warm pages`;
  return series(name, n, warmUp, async (caller) => {
    await pages[caller]!.setContent(html, { waitUntil: "load" });
    await pages[caller]!.pdf(pdf);
  }, pages.length);
}

/** warmPageFloor is reference (a): one warm page, setContent + pdf, n times; the cheapest a render can be. With `pages`
 * warm pages printing at once (each in its own context, as the pool's), the most a pool of that size could print. */
export async function warmPageFloor(browser: Browser, html: string, n: number, pdf: PdfOptions = PDF_OPTIONS, pages = 1): Promise<Figures> {
  const open = await openPages(browser, pages);
  try {
    return await floorOn(open.pages, html, n, pdf);
  } finally {
    await open.close();
  }
}

/** tabPerDocument is reference (b): a new context and page per document in one running browser (Gotenberg's way), `concurrency` at once. */
export async function tabPerDocument(browser: Browser, html: string, n: number, pdf: PdfOptions = PDF_OPTIONS, concurrency = 1): Promise<Figures> {
  const one = async () => {
    const context = await browser.newContext(CONTEXT);
    const page = await context.newPage();
    await page.setContent(html, { waitUntil: "load" });
    await page.pdf(pdf);
    await context.close();
  };
  return series("(b) new tab per document", n, 2, one, concurrency);
}

/** browserPerDocument is reference (c): launch Chromium, print, close it, per document (a naive script). */
export async function browserPerDocument(html: string, n: number, pdf: PdfOptions = PDF_OPTIONS): Promise<Figures> {
  return series("(c) fresh browser per document", n, 1, async () => {
    const browser = await launchBrowser();
    const page = await (await browser.newContext(CONTEXT)).newPage();
    await page.setContent(html, { waitUntil: "load" });
    await page.pdf(pdf);
    await browser.close();
  });
}

/** poolAt measures RenderPool.render() with `concurrency` callers until n jobs from `job()` are printed; latency includes waiting for a page. */
export async function poolAt(pool: RenderPool, job: () => RenderJob, n: number, concurrency: number, label = ""): Promise<Figures> {
  for (let i = 0; i < concurrency; i++) await pool.render(job());
  const ms: number[] = [];
  let left = n;
  const wall = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) ms.push((await pool.render(job())).ms);
    }),
  );
  return figures(`pool render(), concurrency ${concurrency}${label}`, ms, performance.now() - wall);
}

/** printFigures prints series as a Markdown table. */
export function printFigures(rows: Figures[]): void {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  console.log(line(["series", "docs", "p50 ms", "p95 ms", "docs/s"]));
  console.log(line(["---", "---:", "---:", "---:", "---:"]));
  for (const r of rows) console.log(line([r.name, String(r.documents), r.p50.toFixed(1), r.p95.toFixed(1), r.docsPerSecond.toFixed(1)]));
}

if (import.meta.main) {
  const n = Number(process.argv[2] ?? 200);
  const size = Math.max(1, cpus().length);
  console.log(`Chromium ${CHROMIUM}, ${cpus().length} CPUs, ${n} documents per series (b: ${Math.ceil(n / 2)}, c: ${Math.ceil(n / 10)}), pool size ${size}`);
  const rows: Figures[] = [];
  const browser = await launchBrowser();
  try {
    rows.push(await warmPageFloor(browser, INVOICE_HTML, n));
    rows.push(await tabPerDocument(browser, INVOICE_HTML, Math.ceil(n / 2)));
  } finally {
    await browser.close();
  }
  rows.push(await browserPerDocument(INVOICE_HTML, Math.ceil(n / 10)));
  const pool = new RenderPool({ size, chromiumPath: CHROMIUM, timeoutMs: 30_000 });
  await pool.start();
  try {
    for (const concurrency of [1, 2, 8]) rows.push(await poolAt(pool, plainInvoice, n, concurrency));
    // A logo asset in the job's scope (the page is only emptied), and unscoped (the page moves to a new Document).
    for (const concurrency of [1, 2]) rows.push(await poolAt(pool, scopedLogoInvoice, n, concurrency, ", scoped logo"));
    for (const concurrency of [1, 2]) rows.push(await poolAt(pool, unscopedLogoInvoice, n, concurrency, ", unscoped logo"));
    const stats = pool.stats();
    console.log(`pool: ${stats.rendered} renders, ${stats.recycled} pages recycled, ${stats.freshDocuments} new Documents, Pss ${(stats.pssBytes / 2 ** 20).toFixed(0)} MiB, VmRSS sum ${(stats.rssBytes / 2 ** 20).toFixed(0)} MiB`);
  } finally {
    await pool.stop();
  }
  printFigures(rows);
}
