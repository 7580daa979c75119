/**
 * bench/render: renderd end to end — `dist/renderd serve` started as a child process and driven over HTTP with
 * `POST /v1/renders?wait=60` — for a 1-page invoice template and a 1000-row table report (22 pages), against references
 * measured in the same run with the same HTML: (a) the floor (one warm page, setContent + pdf, no server; and as many
 * warm pages as the pool has, printing at once: the most any pool could print), (b) a new tab per document (Gotenberg's
 * way) and (c) a fresh browser per document (a naive script). The references print the exact HTML renderd prints for
 * each template (`POST /v1/templates/{id}/preview?format=html`) with the PDF options the pool uses for it, and each
 * renderd series is measured in blocks alternating with its floor, so that both see the same (shared) machine.
 *
 * Prints the figures, renderd's ratios to each reference, where a render's time goes (split at the render's own
 * createdAt / startedAt / finishedAt), where the CPU goes (renderd, Chromium by process type, this client, everything
 * else on the machine; read from /proc), the pool's resident memory after the 500th and the 1000th invoice, and
 * PASS/MISS per target. Figures are recorded in docs/performance.md. Never run as a test.
 *
 *   node_modules/.bin/bun run scripts/build.ts     # first, when src/ changed: the bench runs dist/renderd
 *   bun bench/render.ts [--workers N] [--docs 200] [--report-docs 30] [--profile] [--binary dist/renderd]
 *
 * --workers: RENDER_WORKERS for the server (default: its own default, the CPU count). --docs: invoices at concurrency
 * 1 and 2 (concurrency 8 then makes the invoice count up to 1000). --profile: run the server at LOG_LEVEL=info and read
 * its "render succeeded" lines, so the time in pool.render() is told apart from the rest of the print step (the log
 * lines cost the server a little CPU).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { commandLine, descendants, hasSwitch, listProcesses, proportionalBytes, residentBytes, type ProcessInfo } from "../src/render/browser";
import { templateJob } from "../src/render/job";
import type { CompositionNode, TemplateSource, ValueFormat } from "../src/render/compile/model";
import {
  browserPerDocument,
  figures,
  floorOn,
  mergeFigures,
  openPages,
  INVOICE_HTML,
  INVOICE_LINES,
  launchBrowser,
  PDF_OPTIONS,
  printFigures,
  tabPerDocument,
  type Figures,
  type PdfOptions,
} from "./floor";

// Imported by another script (to reuse the templates or the server), the importer's arguments are not ours.
const { values } = parseArgs({
  args: import.meta.main ? process.argv.slice(2) : [],
  options: {
    workers: { type: "string" },
    docs: { type: "string", default: "200" },
    "report-docs": { type: "string", default: "30" },
    profile: { type: "boolean", default: false },
    binary: { type: "string", default: "dist/renderd" },
  },
});
const ROOT = resolve(import.meta.dir, "..");
const BINARY = resolve(ROOT, values.binary!);
const DOCS = Number(values.docs);
const REPORT_DOCS = Number(values["report-docs"]);
const TOTAL_INVOICES = 1000;
const WARM_UP = 20;
const MEMORY_AT = 500;
const PASSWORD = "bench-password-1";
const MiB = 2 ** 20;

// The targets of the issue, on this 2-core machine.
const TARGET = { floorRatio: 1.5, c8DocsPerSecond: 35, c8OverNewTab: 3, reportP50: 500 };

// ---------------------------------------------------------------------------------------------------------------
// The documents: the invoice of bench/floor.ts as a template (composition nodes can only make divs and tables, so
// its header, address blocks, totals and terms are divs with classes, styled by the same CSS), and a 1000-row report.

const INVOICE_CSS = `
body { font-family: "DejaVu Sans", "Liberation Sans", sans-serif; font-size: 10pt; color: #1d2430; }
.top { display: flex; justify-content: space-between; align-items: flex-start; border-bottom: 3px solid #2f5fd0; padding-bottom: 10px; }
.brand { font-size: 20pt; font-weight: 700; color: #2f5fd0; letter-spacing: .5px; }
.brand .sub { font-size: 8pt; font-weight: 400; color: #667; letter-spacing: 0; }
.meta { text-align: right; font-size: 9pt; }
.meta .title { margin: 0 0 4px; font-size: 16pt; font-weight: 700; text-transform: uppercase; color: #444; }
.meta .number { font-weight: 700; }
.parties { display: flex; gap: 24px; margin: 18px 0; }
.party { flex: 1; background: #f3f6fc; border-radius: 4px; padding: 8px 10px; line-height: 1.45; }
.party .label { font-size: 8pt; font-weight: 700; text-transform: uppercase; color: #2f5fd0; margin-bottom: 2px; }
table { width: 100%; border-collapse: collapse; }
th { background: #2f5fd0; color: #fff; font-weight: 600; text-align: left; padding: 6px 8px; font-size: 9pt; }
td { padding: 6px 8px; border-bottom: 1px solid #dde3ee; vertical-align: top; }
tr:nth-child(even) td { background: #fafbfe; }
.lines th:first-child, .lines td:first-child { width: 20px; color: #889; }
.lines th:nth-child(n+3), .lines td:nth-child(n+3), .totals td:last-child { text-align: right; white-space: nowrap; }
.totals { margin-left: auto; width: 45%; margin-top: 12px; }
.totals td { border: none; padding: 3px 8px; background: none; }
.totals tr:last-child td { font-size: 12pt; font-weight: 700; border-top: 2px solid #2f5fd0; padding-top: 6px; }
.terms { margin-top: 28px; font-size: 8pt; color: #667; border-top: 1px solid #dde3ee; padding-top: 8px; line-height: 1.5; }
`;

const MONEY: ValueFormat = { type: "number", locale: "en-GB", minimumFractionDigits: 2, maximumFractionDigits: 2 };
const text = (path: string[], className?: string): CompositionNode => ({ type: "text", text: { path }, ...(className ? { className } : {}) });

/** INVOICE_TEMPLATE is bench/floor.ts's invoice as composition nodes. */
export const INVOICE_TEMPLATE: TemplateSource = {
  page: { size: "A4", margin: { top: "18mm", right: "16mm", bottom: "18mm", left: "16mm" } },
  stylesheet: INVOICE_CSS,
  dataSchema: {
    type: "object",
    required: ["number", "lines"],
    properties: {
      number: { type: "string" },
      issued: { type: "string" },
      due: { type: "string" },
      seller: { type: "object", properties: { name: { type: "string" }, address: { type: "string" } } },
      parties: {
        type: "array",
        items: { type: "object", properties: { label: { type: "string" }, lines: { type: "array", items: { type: "object", properties: { text: { type: "string" } } } } } },
      },
      lines: {
        type: "array",
        items: { type: "object", properties: { n: { type: "number" }, text: { type: "string" }, qty: { type: "number" }, price: { type: "number" }, amount: { type: "number" } } },
      },
      totals: { type: "array", items: { type: "object", properties: { label: { type: "string" }, prefix: { type: "string" }, amount: { type: "number" } } } },
    },
  },
  content: {
    type: "container",
    children: [
      {
        type: "container",
        className: "top",
        children: [
          { type: "container", className: "brand", children: [text(["seller", "name"]), text(["seller", "address"], "sub")] },
          {
            type: "container",
            className: "meta",
            children: [
              { type: "text", className: "title", text: "Invoice" },
              { type: "text", text: { parts: ["No. ", { path: ["number"] }] } },
              { type: "text", text: { path: ["issued"], prefix: "Issued ", format: { type: "date", locale: "en-GB", dateStyle: "long" } } },
              { type: "text", text: { path: ["due"], prefix: "Due ", format: { type: "date", locale: "en-GB", dateStyle: "long" } } },
            ],
          },
        ],
      },
      {
        type: "repeat",
        className: "parties",
        source: { path: ["parties"] },
        children: [{ type: "container", className: "party", children: [text(["label"], "label"), { type: "repeat", source: { path: ["lines"] }, children: [text(["text"])] }] }],
      },
      {
        type: "table",
        className: "lines",
        source: { path: ["lines"] },
        columns: [
          { id: "n", header: "#", value: { path: ["n"] } },
          { id: "text", header: "Description", value: { path: ["text"] } },
          { id: "qty", header: "Qty", value: { path: ["qty"] } },
          { id: "price", header: "Unit (GBP)", value: { path: ["price"], format: MONEY } },
          { id: "amount", header: "Amount (GBP)", value: { path: ["amount"], format: MONEY } },
        ],
      },
      {
        type: "table",
        className: "totals",
        showHeader: false,
        source: { path: ["totals"] },
        columns: [
          { id: "label", header: "", value: { path: ["label"] } },
          { id: "amount", header: "", value: { parts: [{ path: ["prefix"] }, { path: ["amount"], format: MONEY }] } },
        ],
      },
      {
        type: "text",
        className: "terms",
        text: {
          parts: [
            "Payment within 30 days to ",
            { path: ["seller", "name"] },
            ", IBAN GB29 NWBK 6016 1331 9268 19, BIC NWBKGB2L, quoting ",
            { path: ["number"] },
            ". Late payments accrue interest at 8% above the Bank of England base rate. Thank you for your business.",
          ],
        },
      },
    ],
  },
};

/** invoiceData is the data of bench/floor.ts's invoice for INVOICE_TEMPLATE. */
export function invoiceData(number = "INV-2026-00042") {
  const net = INVOICE_LINES.reduce((sum, [, qty, price]) => sum + qty * price, 0);
  return {
    number,
    issued: "2026-01-15",
    due: "2026-02-14",
    seller: { name: "Northwind Rendering Ltd", address: "12 Harbour Street · Bristol BS1 4RN · VAT GB 123 4567 89" },
    parties: [
      { label: "Bill to", lines: ["Contoso Logistics GmbH", "Attn. Accounts Payable", "Speicherstraße 8", "20457 Hamburg, Germany"] },
      { label: "Ship to", lines: ["Contoso Logistics GmbH", "Warehouse 3, Gate B", "Am Kaiserkai 22", "20457 Hamburg, Germany"] },
      { label: "Reference", lines: ["PO 4500-778123", "Contract NW-2025-17", "Customer no. C-00931", "Project “Docs 2026”"] },
    ].map((p) => ({ label: p.label, lines: p.lines.map((t) => ({ text: t })) })),
    lines: INVOICE_LINES.map(([t, qty, price], i) => ({ n: i + 1, text: t, qty, price, amount: qty * price })),
    totals: [
      { label: "Net", prefix: "", amount: net },
      { label: "VAT 20%", prefix: "", amount: net * 0.2 },
      { label: "Total due", prefix: "GBP ", amount: net * 1.2 },
    ],
  };
}

const CURRENCY: ValueFormat = { type: "currency", currency: "EUR", locale: "de-DE" };

/** REPORT_TEMPLATE is a table report: a title, a 5-column table over `items` (three currency columns) and page numbers. */
export const REPORT_TEMPLATE: TemplateSource = {
  page: { size: "A4", margin: { top: "15mm", right: "12mm", bottom: "18mm", left: "12mm" } },
  stylesheet: `
body { font-family: "DejaVu Sans", "Liberation Sans", sans-serif; font-size: 8.5pt; color: #1d2430; }
.title { font-size: 14pt; font-weight: 700; color: #2f5fd0; margin-bottom: 2px; }
.subtitle { color: #667; margin-bottom: 8px; }
table { width: 100%; border-collapse: collapse; }
th { background: #2f5fd0; color: #fff; text-align: left; padding: 4px 6px; }
td { padding: 3px 6px; border-bottom: 1px solid #dde3ee; }
tr:nth-child(even) td { background: #f6f8fc; }
th:nth-child(n+3), td:nth-child(n+3) { text-align: right; white-space: nowrap; }
`,
  dataSchema: {
    type: "object",
    properties: {
      title: { type: "string" },
      period: { type: "string" },
      items: {
        type: "array",
        items: { type: "object", properties: { sku: { type: "string" }, name: { type: "string" }, qty: { type: "number" }, price: { type: "number" }, amount: { type: "number" } } },
      },
    },
  },
  content: {
    type: "container",
    children: [
      { type: "text", className: "title", text: { path: ["title"] } },
      { type: "text", className: "subtitle", text: { path: ["period"] } },
      {
        type: "table",
        source: { path: ["items"] },
        columns: [
          { id: "sku", header: "SKU", value: { path: ["sku"] } },
          { id: "name", header: "Product", value: { path: ["name"] } },
          { id: "qty", header: "Qty", value: { path: ["qty"], format: { type: "number", locale: "de-DE" } } },
          { id: "price", header: "Unit price", value: { path: ["price"], format: CURRENCY } },
          { id: "amount", header: "Amount", value: { path: ["amount"], format: CURRENCY } },
        ],
      },
    ],
  },
  footer: {
    type: "text",
    style: { textAlign: "right", paddingRight: "12mm", color: "#667" },
    text: { parts: ["Page ", { path: ["$page", "number"] }, " of ", { path: ["$page", "count"] }] },
  },
};

const PRODUCTS = ["Steel bracket", "Hex bolt M8 × 40", "Cable gland PG11", "Pallet wrap 500 mm", "Label roll 100 × 150", "Safety gloves, size 9", "Shelf rail 2 m", "Bearing 6204-2RS"];

/** reportData is `rows` lines of stock movements, deterministic. */
export function reportData(rows = 1000) {
  return {
    title: "Stock movements",
    period: "1 January – 31 March 2026 · warehouse Hamburg 3",
    items: Array.from({ length: rows }, (_, i) => {
      const qty = 1 + ((i * 37) % 90);
      const price = Math.round((3 + ((i * 7919) % 4000) / 17) * 100) / 100;
      return { sku: `SKU-${String(10000 + i * 13).padStart(6, "0")}`, name: `${PRODUCTS[i % PRODUCTS.length]} — lot ${1 + (i % 23)}`, qty, price, amount: Math.round(qty * price * 100) / 100 };
    }),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The server.

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

/** cli runs one admin command of the binary on the bench's DATA_DIR and answers its --json output. */
function cli<T>(env: Record<string, string>, ...args: string[]): T {
  const run = Bun.spawnSync([BINARY, ...args, "--json"], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`renderd ${args.join(" ")} failed: ${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString()) as T;
}

export interface Server {
  base: string;
  key: string;
  pid: number;
  /** renderId → pool.render() ms, from the server's "render succeeded" lines (with --profile only). */
  poolMs: Map<string, number>;
  stop(): Promise<void>;
}

/** startServer prepares a DATA_DIR (a bench workspace whose allowances do not throttle, an API key) and serves it. */
export async function startServer(options: { workers?: string; profile?: boolean; env?: Record<string, string>; command?: string[] } = values): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), "renderd-bench-render-"));
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    INTERNAL_PORT: String(freePort()),
    HOST: "127.0.0.1",
    PUBLIC_URL: base,
    LOG_LEVEL: options.profile ? "info" : "warn",
    RENDERD_ADMIN_PASSWORD: PASSWORD,
    API_RATE_LIMIT_PER_MINUTE: "10000000",
  };
  if (options.workers) env.RENDER_WORKERS = options.workers;
  Object.assign(env, options.env);
  // The CLI acts on the store directly: a workspace of its own, allowances that never throttle, a key.
  cli(env, "migrate");
  cli(env, "workspaces", "create", "Bench", "--slug", "bench");
  cli(env, "allowances", "set", "--workspace", "bench", "--max-active-renders", "100000", "--renders-per-minute", "10000000");
  const { secret } = cli<{ secret: string }>(env, "keys", "create", "--workspace", "bench", "--name", "bench", "--scope", "render:create,render:read,template:write,template:publish");

  const child = Bun.spawn(options.command ?? [BINARY, "serve"], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
  const poolMs = new Map<string, number>();
  // Read the log (and keep the pipe drained): pino writes one JSON object per line.
  void (async () => {
    const reader = child.stdout.getReader();
    const decoder = new TextDecoder();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const lines = (rest + decoder.decode(value, { stream: true })).split("\n");
      rest = lines.pop()!;
      for (const line of lines) {
        if (!line.includes("render succeeded")) continue;
        try {
          const entry = JSON.parse(line) as { renderId: string; ms: number };
          poolMs.set(entry.renderId, entry.ms);
        } catch {
          // not a log object
        }
      }
    }
  })();
  const stop = async () => {
    child.kill("SIGTERM");
    await child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    if (i > 600) {
      await stop();
      throw new Error("renderd did not start within 30 s");
    }
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await Bun.sleep(50);
  }
  return {
    base,
    key: secret,
    pid: child.pid,
    poolMs,
    stop,
  };
}

/** api calls the API with the bench's key and answers the JSON (or text) body; anything but 2xx throws. */
export async function api<T>(server: Server, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { "x-api-key": server.key, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${answer.slice(0, 500)}`);
  return (res.headers.get("content-type") ?? "").includes("json") ? (JSON.parse(answer) as T) : (answer as T);
}

/** publishTemplate creates a template and publishes its version 1. */
export async function publishTemplate(server: Server, name: string, source: TemplateSource): Promise<string> {
  const { id } = await api<{ id: string }>(server, "POST", "/v1/templates", { name, ...source });
  await api(server, "POST", `/v1/templates/${id}/publish`);
  return id;
}

// ---------------------------------------------------------------------------------------------------------------
// Driving renders.

/** Timing is one render as the client saw it, split at the render's own timestamps (server clock = client clock here). */
export interface Timing {
  id: string;
  ms: number;
  /** POST sent → createdAt: request in, auth, data check, compile to HTML, allowance charge (createdAt is stamped last). */
  accept: number;
  /** createdAt → startedAt: queued until the worker claims it. */
  queue: number;
  /** startedAt → finishedAt: pool.render() (page wait, setContent, pdf), PDF written, final state committed. */
  print: number;
  /** finishedAt → 200 read: waking the ?wait request, reading the render back, signing its URL, the answer. */
  answer: number;
  pages: number;
}

/** renderOnce creates one render with `?wait=60` and answers its timing; anything but a 200 `succeeded` throws. */
export async function renderOnce(server: Server, body: string): Promise<Timing> {
  const sent = Date.now();
  const t = performance.now();
  const res = await fetch(`${server.base}/v1/renders?wait=60`, { method: "POST", headers: { "x-api-key": server.key, "content-type": "application/json" }, body });
  const answer = await res.text();
  const ms = performance.now() - t;
  const done = Date.now();
  if (res.status !== 200) throw new Error(`render: ${res.status} ${answer.slice(0, 500)}`);
  const r = JSON.parse(answer) as { id: string; status: string; createdAt: string; startedAt: string; finishedAt: string; result: { pages: number } };
  if (r.status !== "succeeded") throw new Error(`render ${r.id} ended ${r.status}`);
  const [created, started, finished] = [r.createdAt, r.startedAt, r.finishedAt].map(Date.parse) as [number, number, number];
  return { id: r.id, ms, accept: created - sent, queue: started - created, print: finished - started, answer: done - finished, pages: r.result.pages };
}

export interface Run {
  figures: Figures;
  timings: Timing[];
}

/** drive renders n documents with `concurrency` clients at once; latency is POST to the 200 answer (`?wait=60`). */
export async function drive(server: Server, name: string, body: string, n: number, concurrency: number): Promise<Run> {
  const timings: Timing[] = [];
  let left = n;
  const wall = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) timings.push(await renderOnce(server, body));
    }),
  );
  return { figures: figures(name, timings.map((t) => t.ms), performance.now() - wall), timings };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};

// ---------------------------------------------------------------------------------------------------------------
// Memory: the Chromium processes below the renderd child, plus their crash handlers (setsid, found as the pool does).

export interface Memory {
  processes: number;
  rssBytes: number;
  pssBytes: number;
  serverRssBytes: number;
}

/** chromiumProcesses lists the live Chromium processes below `root`, and their crash handlers. */
export function chromiumProcesses(root: number): ProcessInfo[] {
  const all = listProcesses();
  const alive = (p: ProcessInfo) => p.state !== "Z" && p.state !== "X";
  const found = new Map(descendants(root, all).filter(alive).map((p) => [p.pid, p]));
  const dirs = [...found.values()].flatMap((p) => commandLine(p.pid).flatMap((arg) => [...arg.matchAll(/--renderd-browser=(\S+)/g)].map((m) => m[1]!)));
  for (const p of all) {
    if (found.has(p.pid) || !alive(p) || !p.name.startsWith("chrome_crashpad")) continue;
    if (commandLine(p.pid).some((arg) => arg.startsWith("--database=") && dirs.some((dir) => arg.includes(dir)))) found.set(p.pid, p);
  }
  return [...found.values()];
}

/** memory reads the resident memory of renderd's Chromium processes (VmRSS and Pss summed) and of renderd itself. */
export function memory(server: Server): Memory {
  const processes = chromiumProcesses(server.pid);
  return {
    processes: processes.length,
    rssBytes: processes.reduce((sum, p) => sum + residentBytes(p.pid), 0),
    pssBytes: processes.reduce((sum, p) => sum + proportionalBytes(p.pid), 0),
    serverRssBytes: residentBytes(server.pid),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// CPU: where a series' processor time goes, read from /proc every 100 ms (a process that ends between two reads
// loses at most its last 100 ms). Everything the machine did besides renderd, its Chromium and this client is "others":
// the machine is shared, and that column says how much of it a series had.

const TICK_MS = 1000 / 100; // CLK_TCK is 100 on Linux

/** cpuMs answers a process's user + system time in ms, or null when it is gone. */
function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return null;
  }
}

/** machineBusyMs answers the busy time of all CPUs together (everything but idle and iowait), in ms. */
function machineBusyMs(): number {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = ticks as number[];
  return (user! + nice! + system! + irq! + softirq! + steal!) * TICK_MS;
}

const CPU_CLASSES = ["renderd", "browser", "renderers", "gpu, utility", "client", "others"] as const;
type CpuClass = (typeof CPU_CLASSES)[number];

/** CpuReport is the CPU time of one series by kind of process, in ms. */
export type CpuReport = Record<CpuClass, number> & { wallMs: number };

function classOf(pid: number, serverPid: number): CpuClass {
  if (pid === serverPid) return "renderd";
  const args = commandLine(pid);
  if (hasSwitch(args, "--type=renderer")) return "renderers";
  return args.some((arg) => /(^|\s)--type=/.test(arg)) ? "gpu, utility" : "browser";
}

/** serverProcesses lists renderd and its Chromium processes. */
export function serverProcesses(server: Server): number[] {
  return [server.pid, ...chromiumProcesses(server.pid).map((p) => p.pid)];
}

/** referenceProcesses lists the Chromium processes this script started itself (the references), not renderd's. */
export function referenceProcesses(server: Server): number[] {
  const all = listProcesses();
  const theirs = new Set([server.pid, ...descendants(server.pid, all).map((p) => p.pid)]);
  return descendants(process.pid, all)
    .filter((p) => !theirs.has(p.pid) && p.state !== "Z")
    .map((p) => p.pid);
}

/** measureCpu runs `fn` while reading the CPU time of the processes `pids()` lists (renderd's or the references'),
 * this client, and the whole machine. */
export async function measureCpu<T>(pids: () => number[], serverPid: number, fn: () => Promise<T>): Promise<{ value: T; cpu: CpuReport }> {
  const seen = new Map<number, { cls: CpuClass; first: number; last: number }>();
  const sample = (baseline: boolean) => {
    for (const pid of pids()) {
      const ms = cpuMs(pid);
      if (ms === null) continue;
      const known = seen.get(pid);
      // A process first seen after the start began during the series: all its time counts.
      if (known) known.last = ms;
      else seen.set(pid, { cls: classOf(pid, serverPid), first: baseline ? ms : 0, last: ms });
    }
  };
  sample(true);
  const busy0 = machineBusyMs();
  const client0 = process.cpuUsage();
  const wall = performance.now();
  const timer = setInterval(() => sample(false), 100);
  try {
    const value = await fn();
    sample(false);
    const cpu = Object.fromEntries(CPU_CLASSES.map((c) => [c, 0])) as CpuReport;
    for (const p of seen.values()) cpu[p.cls] += p.last - p.first;
    const client = process.cpuUsage(client0);
    cpu.client = (client.user + client.system) / 1000;
    const ours = CPU_CLASSES.filter((c) => c !== "others").reduce((sum, c) => sum + cpu[c], 0);
    cpu.others = Math.max(0, machineBusyMs() - busy0 - ours);
    cpu.wallMs = performance.now() - wall;
    return { value, cpu };
  } finally {
    clearInterval(timer);
  }
}

function cpuRow(label: string, cpu: CpuReport, documents: number): string {
  const per = (ms: number) => (ms / documents).toFixed(1);
  const ours = CPU_CLASSES.filter((c) => c !== "others").reduce((sum, c) => sum + cpu[c], 0);
  const cores = (ms: number) => (ms / cpu.wallMs).toFixed(2);
  return `| ${[label, ...CPU_CLASSES.filter((c) => c !== "others").map((c) => per(cpu[c])), per(ours), cores(ours), cores(cpu.others)].join(" | ")} |`;
}

// ---------------------------------------------------------------------------------------------------------------

const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;
const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");

/** pdfOptionsOf maps a job's PDF settings onto page.pdf as the pool does (background on, untagged, page range to 501). */
function pdfOptionsOf(source: TemplateSource, data: unknown): PdfOptions {
  const job = templateJob({ source, assetIds: [] }, data, () => null);
  return { ...PDF_OPTIONS, ...job.pdf, pageRanges: "1-501" };
}

function breakdown(label: string, run: Run, poolMs: Map<string, number>): string {
  const t = run.timings;
  const pool = t.map((x) => poolMs.get(x.id)).filter((x): x is number => x !== undefined);
  const cells = [
    label,
    median(t.map((x) => x.ms)).toFixed(0),
    median(t.map((x) => x.accept)).toFixed(0),
    median(t.map((x) => x.queue)).toFixed(0),
    median(t.map((x) => x.print)).toFixed(0),
    pool.length ? median(pool).toFixed(0) : "–",
    median(t.map((x) => x.answer)).toFixed(0),
  ];
  return `| ${cells.join(" | ")} |`;
}

// Each comparison is measured in alternating blocks (reference, renderd, reference, …) so that both see the same
// machine: it is shared, and other work on it moves a series by tens of per cent from one minute to the next.
const ROUNDS = 5;

/** Blocks accumulates a series measured in blocks: its figures, timings (renderd only) and CPU. */
class Blocks {
  readonly parts: Figures[] = [];
  readonly timings: Timing[] = [];
  cpu?: CpuReport;
  add(figures: Figures, cpu: CpuReport, timings: Timing[] = []): void {
    this.parts.push(figures);
    this.timings.push(...timings);
    this.cpu = this.cpu ? addCpu(this.cpu, cpu) : cpu;
  }
  figures(name: string): Figures {
    return mergeFigures(name, this.parts);
  }
  run(name: string): Run {
    return { figures: this.figures(name), timings: this.timings };
  }
}

async function main() {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} does not exist: build it first (node_modules/.bin/bun run scripts/build.ts)`);
  const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");
  console.log(
    `renderd render benchmark: ${BINARY}, Bun ${Bun.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), ` +
      `RENDER_WORKERS ${values.workers ?? `default (${cpus().length})`}, load average ${load()}`,
  );
  const server = await startServer();
  const ours = () => serverProcesses(server);
  const refs = () => referenceProcesses(server);
  try {
    const invoiceId = await publishTemplate(server, "Bench invoice", INVOICE_TEMPLATE);
    const reportId = await publishTemplate(server, "Bench report", REPORT_TEMPLATE);
    const invoice = invoiceData();
    const report = reportData(1000);
    // The references print exactly what renderd prints: its HTML for the template and data, and the pool's options.
    const invoiceHtml = await api<string>(server, "POST", `/v1/templates/${invoiceId}/preview?format=html`, { data: invoice });
    const reportHtml = await api<string>(server, "POST", `/v1/templates/${reportId}/preview?format=html`, { data: report });
    const invoicePdf = pdfOptionsOf(INVOICE_TEMPLATE, invoice);
    const reportPdf = pdfOptionsOf(REPORT_TEMPLATE, report);
    const body = JSON.stringify({ templateId: invoiceId, data: invoice });
    const reportBody = JSON.stringify({ templateId: reportId, data: report });
    console.log(`invoice: HTML ${invoiceHtml.length} characters (bench/floor.ts's ${INVOICE_HTML.length}), request ${body.length} bytes; report: HTML ${reportHtml.length} characters, request ${reportBody.length} bytes`);

    let rendered = 0;
    const invoices = async (n: number, concurrency: number) => {
      const r = await drive(server, "invoice", body, n, concurrency);
      rendered += n;
      return r;
    };
    const browser = await launchBrowser();
    const floor1 = new Blocks(), handWritten = new Blocks(), c1 = new Blocks(), floor2 = new Blocks(), c8 = new Blocks(), reportFloor = new Blocks(), report1 = new Blocks();
    let c2: { value: Run; cpu: CpuReport };
    let at500: Memory, at1000: Memory;
    const memorySamples: (Memory & { at: number })[] = [];
    const references: Figures[] = [];
    try {
      // Latency: the invoice at concurrency 1 against the floor (one warm page), and the floor with bench/floor.ts's
      // hand-written invoice, which the template imitates.
      await invoices(WARM_UP, 1);
      const one = await openPages(browser, 1);
      await floorOn(one.pages, invoiceHtml, 0, invoicePdf);
      await floorOn(one.pages, INVOICE_HTML, 0);
      for (let round = 0; round < ROUNDS; round++) {
        const n = Math.ceil(DOCS / ROUNDS);
        const f = await measureCpu(refs, server.pid, () => floorOn(one.pages, invoiceHtml, n, invoicePdf, 0));
        floor1.add(f.value, f.cpu);
        const h = await measureCpu(refs, server.pid, () => floorOn(one.pages, INVOICE_HTML, n, PDF_OPTIONS, 0));
        handWritten.add(h.value, h.cpu);
        const r = await measureCpu(ours, server.pid, () => invoices(n, 1));
        c1.add(r.value.figures, r.cpu, r.value.timings);
      }
      c2 = await measureCpu(ours, server.pid, () => invoices(DOCS, 2));
      if (rendered > MEMORY_AT) throw new Error(`--docs ${DOCS} is too many: the ${MEMORY_AT}th invoice must come after the concurrency 2 series`);
      // Up to the 500th invoice (untimed), then the pool's memory with the server idle.
      await invoices(MEMORY_AT - rendered, 8);
      await Bun.sleep(1500);
      at500 = memory(server);
      memorySamples.push({ at: rendered, ...at500 });
      // Throughput: the invoice at concurrency 8 against the floor of a pool of the same size (that many warm pages,
      // printing at once, no server): the most any pool could print here.
      const size = Number(values.workers ?? cpus().length);
      const block = Math.ceil((TOTAL_INVOICES - MEMORY_AT) / ROUNDS);
      const pool = await openPages(browser, size);
      await floorOn(pool.pages, invoiceHtml, 0, invoicePdf);
      for (let round = 0; round < ROUNDS; round++) {
        const f = await measureCpu(refs, server.pid, () => floorOn(pool.pages, invoiceHtml, block, invoicePdf, 0));
        floor2.add(f.value, f.cpu);
        const r = await measureCpu(ours, server.pid, () => invoices(Math.min(block, TOTAL_INVOICES - rendered), 8));
        c8.add(r.value.figures, r.cpu, r.value.timings);
        // The pool's memory after every block, with the server idle again.
        await Bun.sleep(1500);
        memorySamples.push({ at: rendered, ...memory(server) });
      }
      at1000 = memorySamples.at(-1)!;
      await Promise.all([one.close(), pool.close()]);
      // The other references for the invoice.
      references.push(await tabPerDocument(browser, invoiceHtml, Math.ceil(DOCS / 2), invoicePdf));
      references.push(await tabPerDocument(browser, invoiceHtml, Math.ceil(DOCS / 2), invoicePdf, 8));
      references.push(await browserPerDocument(invoiceHtml, Math.ceil(DOCS / 10), invoicePdf));
      // The 1000-row report at concurrency 1 against its floor, then its other references.
      await drive(server, "report warm-up", reportBody, 3, 1);
      const page = await openPages(browser, 1);
      await floorOn(page.pages, reportHtml, 0, reportPdf, 3);
      for (let round = 0; round < ROUNDS; round++) {
        const n = Math.ceil(REPORT_DOCS / ROUNDS);
        const f = await measureCpu(refs, server.pid, () => floorOn(page.pages, reportHtml, n, reportPdf, 0));
        reportFloor.add(f.value, f.cpu);
        const r = await measureCpu(ours, server.pid, () => drive(server, "report", reportBody, n, 1));
        report1.add(r.value.figures, r.cpu, r.value.timings);
      }
      await page.close();
      references.push({ ...(await tabPerDocument(browser, reportHtml, Math.ceil(REPORT_DOCS / 2), reportPdf)), name: "(b) report, new tab per document" });
    } finally {
      await browser.close();
    }
    references.push({ ...(await browserPerDocument(reportHtml, Math.ceil(REPORT_DOCS / 5), reportPdf)), name: "(c) report, fresh browser per document" });
    const [newTab, newTab8, fresh, reportTab, reportFresh] = references as [Figures, Figures, Figures, Figures, Figures];

    const floor = floor1.figures("(a) floor: one warm page");
    const floorPool = floor2.figures(`(a) floor: ${Number(values.workers ?? cpus().length)} warm pages at once (a pool without a server)`);
    const i1 = c1.run("renderd invoice, concurrency 1");
    const i2 = { ...c2.value, figures: { ...c2.value.figures, name: "renderd invoice, concurrency 2" } };
    const i8 = c8.run("renderd invoice, concurrency 8");
    const rFloor = reportFloor.figures("(a) report floor: one warm page");
    const r1 = report1.run("renderd 1000-row report, concurrency 1");
    const pages = r1.timings[0]!.pages;

    console.log(`load average at the end ${load()}; report: ${pages} pages\n`);
    console.log(`Invoice (${ROUNDS} alternating blocks: floor ↔ hand-written floor ↔ concurrency 1, then pool floor ↔ concurrency 8):\n`);
    printFigures([floor, handWritten.figures("(a′) floor with bench/floor.ts's hand-written invoice HTML"), newTab, newTab8, fresh, floorPool, i1.figures, i2.figures, i8.figures]);
    console.log(`\n1000-row report (${ROUNDS} alternating blocks: floor ↔ renderd):\n`);
    printFigures([rFloor, reportTab, reportFresh, r1.figures]);

    console.log(`\nWhere a render's time goes (medians, ms; split at each render's createdAt / startedAt / finishedAt${values.profile ? ", pool.render() from the server's log" : ""}):\n`);
    console.log("| series | POST→200 | accept: HTTP in, check, compile, insert | queue | print: pool + store | of which pool.render() | answer: wake, read back, HTTP out |");
    console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const [label, r] of [["invoice c1", i1], ["invoice c2", i2], ["invoice c8", i8], ["report c1", r1]] as const) console.log(breakdown(label, r, server.poolMs));

    console.log(`\nWhere the CPU goes (ms of CPU per document; "renderd" is the server's Bun process, "client" this script; the last two columns are cores busy on average, ours and everything else on the machine):\n`);
    console.log(`| series | ${CPU_CLASSES.filter((c) => c !== "others").join(" | ")} | all ours | cores ours | cores others |`);
    console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const [label, cpu, n] of [
      ["invoice floor, 1 page", floor1.cpu!, floor.documents],
      ["invoice floor, hand-written HTML", handWritten.cpu!, floor.documents],
      ["invoice c1", c1.cpu!, i1.figures.documents],
      ["invoice c2", c2.cpu, i2.figures.documents],
      ["invoice floor, pool-size pages", floor2.cpu!, floorPool.documents],
      ["invoice c8", c8.cpu!, i8.figures.documents],
      ["report floor", reportFloor.cpu!, rFloor.documents],
      ["report c1", report1.cpu!, r1.figures.documents],
    ] as const)
      console.log(cpuRow(label, cpu, n));

    const x = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    const [f1, f8, fr] = [i1.figures, i8.figures, r1.figures];
    console.log(`\nRatios:`);
    console.log(`- invoice p50 at concurrency 1: renderd ${f1.p50.toFixed(1)} ms = ${x(f1.p50, floor.p50)} the floor (${floor.p50.toFixed(1)} ms), ${x(f1.p50, newTab.p50)} a new tab, ${x(f1.p50, fresh.p50)} a fresh browser`);
    console.log(
      `- invoice throughput at concurrency 8: renderd ${f8.docsPerSecond.toFixed(1)} docs/s = ${x(f8.docsPerSecond, newTab.docsPerSecond)} a new tab (one at a time), ` +
        `${x(f8.docsPerSecond, newTab8.docsPerSecond)} new tabs 8 at a time, ${x(f8.docsPerSecond, fresh.docsPerSecond)} a fresh browser, ` +
        `${x(f8.docsPerSecond, floor.docsPerSecond)} the one-page floor, ${x(f8.docsPerSecond, floorPool.docsPerSecond)} the pool floor (${floorPool.docsPerSecond.toFixed(1)} docs/s)`,
    );
    console.log(`- report p50: renderd ${fr.p50.toFixed(0)} ms = ${x(fr.p50, rFloor.p50)} the floor (${rFloor.p50.toFixed(0)} ms), ${x(fr.p50, reportTab.p50)} a new tab, ${x(fr.p50, reportFresh.p50)} a fresh browser`);
    const grew = at1000.pssBytes - at500.pssBytes;
    // The trend of Pss over the samples (least squares), as growth over the 500 renders: less sensitive than the two
    // end points to where each page happens to be in its recycling (pages are replaced every 200 renders).
    const trend = slope(memorySamples.map((m) => [m.at, m.pssBytes])) * (TOTAL_INVOICES - MEMORY_AT);
    console.log(
      `- pool memory (${at500.processes} → ${at1000.processes} Chromium processes): after invoice ${MEMORY_AT} Pss ${mib(at500.pssBytes)} (VmRSS sum ${mib(at500.rssBytes)}), ` +
        `after ${TOTAL_INVOICES} Pss ${mib(at1000.pssBytes)} (VmRSS sum ${mib(at1000.rssBytes)}): ${grew >= 0 ? "+" : ""}${mib(grew)} (${((grew / at500.pssBytes) * 100).toFixed(1)} %); ` +
        `trend over the ${memorySamples.length} samples ${trend >= 0 ? "+" : ""}${mib(trend)} per ${TOTAL_INVOICES - MEMORY_AT} renders; renderd itself VmRSS ${mib(at500.serverRssBytes)} → ${mib(at1000.serverRssBytes)}`,
    );
    console.log(`  Pss after each block: ${memorySamples.map((m) => `${m.at}: ${mib(m.pssBytes)}`).join(", ")}`);

    // "Not growing": the trend from the 500th to the 1000th invoice adds less than 10 % to the Pss at the 500th.
    const memoryOk = trend < 0.1 * at500.pssBytes;
    console.log(`\nTargets:`);
    console.log(`- ${verdict(f1.p50 <= TARGET.floorRatio * floor.p50)} invoice p50 ≤ ${TARGET.floorRatio}× the floor: ${x(f1.p50, floor.p50)}`);
    console.log(`- ${verdict(f8.docsPerSecond >= TARGET.c8DocsPerSecond)} invoice throughput at concurrency 8 ≥ ${TARGET.c8DocsPerSecond} docs/s: ${f8.docsPerSecond.toFixed(1)}`);
    console.log(`- ${verdict(f8.docsPerSecond >= TARGET.c8OverNewTab * newTab.docsPerSecond)} … and ≥ ${TARGET.c8OverNewTab}× the new-tab reference: ${x(f8.docsPerSecond, newTab.docsPerSecond)}`);
    console.log(`- ${verdict(fr.p50 < TARGET.reportP50)} 1000-row report (${pages} pages) p50 < ${TARGET.reportP50} ms: ${fr.p50.toFixed(0)} ms`);
    console.log(`- ${verdict(memoryOk)} pool memory not growing from invoice ${MEMORY_AT} to ${TOTAL_INVOICES} (Pss trend < +10 %): ${mib(at500.pssBytes)} → ${mib(at1000.pssBytes)}, trend ${trend >= 0 ? "+" : ""}${mib(trend)}`);
  } finally {
    await server.stop();
  }
}

/** slope fits y = a + b·x by least squares and answers b. */
function slope(points: [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const sxy = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  const sxx = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

function addCpu(a: CpuReport, b: CpuReport): CpuReport {
  const sum = { ...a };
  for (const c of CPU_CLASSES) sum[c] += b[c];
  sum.wallMs += b.wallMs;
  return sum;
}

if (import.meta.main) await main();
