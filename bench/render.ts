/**
 * bench/render: renderd end to end — `dist/renderd serve` started as a child process and driven over HTTP with
 * `POST /v1/renders?wait=60` — for a 1-page invoice template and a 1000-row table report (22 pages), against references
 * measured in the same run with the same HTML: (a) the floor (one warm page, setContent + pdf, no server; and as many
 * warm pages as the pool has, printing at once: the most any pool could print), (b) a new tab per document (Gotenberg's
 * way) and (c) a fresh browser per document (a naive script). The references print the exact HTML renderd prints for
 * each template (`POST /v1/templates/{id}/preview?format=html`) with the PDF options the pool uses for it, and each
 * renderd series is measured in blocks alternating with its floor, so that both see the same (shared) machine.
 *
 * Prints the figures, renderd's ratios to each reference, the split per document (accept, queue, print, commit, answer
 * at the render's own createdAt / startedAt / finishedAt and its "render succeeded" log line; renderd's CPU against
 * Chromium's), where the CPU goes (renderd, Chromium by process type, this client, everything else on the machine;
 * read from /proc), the pool's resident memory after the 500th and the 1000th invoice, and PASS/MISS per target
 * (bench/targets.ts: issue 10's and issue 17's, the CPU target with the floor's own client beside it). Figures are
 * recorded in docs/performance.md. Never run as a test. Its parts: bench/documents.ts (the templates and data),
 * bench/server.ts (the server and the HTTP driver), bench/floor.ts (the references), bench/measure.ts (memory and CPU
 * from /proc), bench/report.ts (the tables), bench/targets.ts.
 *
 *   node_modules/.bin/bun run scripts/build.ts     # first, when src/ changed: the bench runs dist/renderd
 *   bun bench/render.ts [--quick] [--settle N] [--workers N] [--docs 200] [--report-docs 30] [--binary dist/renderd] [--help]
 *
 * --quick: 3 blocks, 60 invoices at concurrency 1, 400 in all, 9 reports (under 3 minutes); it ends with issue 32's
 * table (ratios and renderd's own ms, PASS/MISS), which holds on any machine.
 * --settle N: N more invoices at concurrency 8, untimed, before the first timed block (so every invoice count after it
 * moves by N): every block then reads a server whose JavaScript compilers have settled, as a server that has run for a
 * while. Without it the blocks fall in the compilers' warm-up, which lasts ~1,500 invoices and costs renderd ~1–2 ms of
 * CPU per invoice at concurrency 8 and ~0.6 ms of its own time per invoice at concurrency 1 (docs/performance.md "One
 * session per page; the compilers' warm-up" and "Own time at concurrency 1 after the warm-up").
 * --workers: RENDER_WORKERS for the server (default: its own default, the CPU count). --docs: invoices at concurrency
 * 1, as a template and as {html} (concurrency 2 renders a quarter as many; concurrency 8 then makes the invoice count up
 * to 1000). --binary: another build (e.g. main's, for a before/after on the same machine). The server runs at its
 * default LOG_LEVEL, info.
 */
import { existsSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { templateJob } from "../src/render/job";
import type { TemplateSource } from "../src/render/compile/model";
import { INVOICE_TEMPLATE, invoiceData, REPORT_TEMPLATE, reportData } from "./documents";
import { browserPerDocument, floorOn, mergeFigures, openPages, INVOICE_HTML, launchBrowser, PDF_OPTIONS, printFigures, tabPerDocument, type Figures, type PdfOptions } from "./floor";
import { addCpu, CPU_CLASSES, measureCpu, memory, referenceProcesses, serverProcesses, type CpuReport, type Memory } from "./measure";
import { cpuRow, LAPS_HEADER, lapsRow, mib, OWN_HEADER, ownOf, ownRow, slope, SPLIT_HEADER, splitRow, verdict } from "./report";
import { api, drive, publishTemplate, startServer, type Run, type Timing } from "./server";
import { blockRatio, closenessLines, ISSUE_10, issue32Table } from "./targets";

const USAGE = "bun bench/render.ts [--quick] [--settle N] [--workers N] [--docs 200] [--report-docs 30] [--binary dist/renderd] [--help]";
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    workers: { type: "string" },
    docs: { type: "string", default: "200" },
    "report-docs": { type: "string", default: "30" },
    binary: { type: "string", default: "dist/renderd" },
    quick: { type: "boolean", default: false },
    settle: { type: "string", default: "0" },
    help: { type: "boolean", short: "h", default: false },
  },
});
const ROOT = resolve(import.meta.dir, "..");
const BINARY = resolve(ROOT, values.binary!);
// --quick: fewer documents and blocks (under 3 minutes), for judging a change by renderd's own milliseconds; the
// memory figures then span 200 → 400 invoices and say less.
const QUICK = values.quick!;
const DOCS = QUICK ? 60 : Number(values.docs);
const REPORT_DOCS = QUICK ? 9 : Number(values["report-docs"]);
const SETTLE = Number(values.settle);
if (!Number.isInteger(SETTLE) || SETTLE < 0) throw new Error(`--settle ${values.settle}: give a whole number of invoices, 0 or more`);
const TOTAL_INVOICES = (QUICK ? 400 : 1000) + SETTLE;
const WARM_UP = 20;
const MEMORY_AT = (QUICK ? 200 : 500) + SETTLE;

/** pdfOptionsOf maps a job's PDF settings onto page.pdf as the pool does (background on, untagged, page range to 501). */
async function pdfOptionsOf(source: TemplateSource, data: unknown): Promise<PdfOptions> {
  const job = await templateJob({ source, assetIds: [] }, data, () => null);
  return { ...PDF_OPTIONS, ...job.pdf, pageRanges: "1-501" };
}

// Each comparison is measured in alternating blocks (reference, renderd, reference, …) so that both see the same
// machine: it is shared, and other work on it moves a series by tens of per cent from one minute to the next.
const ROUNDS = QUICK ? 3 : 5;

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
      `RENDER_WORKERS ${values.workers ?? `default (${cpus().length})`}, ${SETTLE} invoices to settle before the timed blocks, load average ${load()}`,
  );
  const server = await startServer({ ...values, binary: BINARY });
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
    const invoicePdf = await pdfOptionsOf(INVOICE_TEMPLATE, invoice);
    const reportPdf = await pdfOptionsOf(REPORT_TEMPLATE, report);
    const body = JSON.stringify({ templateId: invoiceId, data: invoice });
    const htmlBody = JSON.stringify({ html: invoiceHtml });
    const reportBody = JSON.stringify({ templateId: reportId, data: report });
    console.log(`invoice: HTML ${invoiceHtml.length} characters (bench/floor.ts's ${INVOICE_HTML.length}), request ${body.length} bytes; report: HTML ${reportHtml.length} characters, request ${reportBody.length} bytes`);

    let rendered = 0;
    const invoices = async (n: number, concurrency: number, request = body) => {
      const r = await drive(server, "invoice", request, n, concurrency);
      rendered += n;
      return r;
    };
    const browser = await launchBrowser();
    const floor1 = new Blocks(), handWritten = new Blocks(), c1 = new Blocks(), html1 = new Blocks(), floor2 = new Blocks(), c8 = new Blocks(), reportFloor = new Blocks(), report1 = new Blocks();
    let c2: { value: Run; cpu: CpuReport };
    let at500: Memory, at1000: Memory;
    const memorySamples: (Memory & { at: number })[] = [];
    const references: Figures[] = [];
    try {
      // Latency: the invoice at concurrency 1, as a template and as the same HTML, against the floor (one warm page),
      // and the floor with bench/floor.ts's hand-written invoice, which the template imitates.
      await invoices(WARM_UP, 1);
      // The compilers' warm-up (--settle), before any block is timed: the c1 blocks read renderd's own milliseconds.
      await invoices(SETTLE, 8);
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
        const hr = await measureCpu(ours, server.pid, () => invoices(n, 1, htmlBody));
        html1.add(hr.value.figures, hr.cpu, hr.value.timings);
      }
      c2 = await measureCpu(ours, server.pid, () => invoices(Math.ceil(DOCS / 4), 2));
      if (rendered > MEMORY_AT) throw new Error(`--docs ${DOCS} is too many: the ${MEMORY_AT}th invoice must come after the concurrency 2 series`);
      // Up to the 500th invoice (200th with --quick; --settle more, rendered first), untimed, then the pool's memory with
      // the server idle.
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
    const h1 = html1.run("renderd invoice as {html}, concurrency 1");
    const i2 = { ...c2.value, figures: { ...c2.value.figures, name: "renderd invoice, concurrency 2" } };
    const i8 = c8.run("renderd invoice, concurrency 8");
    const rFloor = reportFloor.figures("(a) report floor: one warm page");
    const r1 = report1.run("renderd 1000-row report, concurrency 1");
    const pages = r1.timings[0]!.pages;

    console.log(`load average at the end ${load()}; report: ${pages} pages\n`);
    console.log(`Invoice (${ROUNDS} alternating blocks: floor ↔ hand-written floor ↔ concurrency 1, then pool floor ↔ concurrency 8):\n`);
    printFigures([floor, handWritten.figures("(a′) floor with bench/floor.ts's hand-written invoice HTML"), newTab, newTab8, fresh, floorPool, i1.figures, h1.figures, i2.figures, i8.figures]);
    console.log(`\n1000-row report (${ROUNDS} alternating blocks: floor ↔ renderd):\n`);
    printFigures([rFloor, reportTab, reportFresh, r1.figures]);

    console.log(`\nThe split per document (medians, ms, at each render's createdAt / startedAt / finishedAt, pool.render() from the server's log; CPU in ms per document):\n`);
    for (const line of SPLIT_HEADER) console.log(line);
    for (const [label, r, cpu] of [["invoice c1", i1, c1.cpu!], ["invoice {html} c1", h1, html1.cpu!], ["invoice c2", i2, c2.cpu], ["invoice c8", i8, c8.cpu!], ["report c1", r1, report1.cpu!]] as const)
      console.log(splitRow(label, r, cpu, server.poolMs));

    console.log(`\nThe split's commit in renderd's own steps (medians of the server's laps, ms to the hundredth):\n`);
    for (const line of LAPS_HEADER) console.log(line);
    for (const [label, r] of [["invoice c1", i1], ["invoice {html} c1", h1], ["invoice c8", i8], ["report c1", r1]] as const) console.log(lapsRow(label, r, server.laps));

    console.log(`\nrenderd's own milliseconds per render: all but pool.render(), from the request's arrival to its answer (medians of the server's laps, ms to the hundredth; "claim and wake" is the request's wait less the worker's steps):\n`);
    for (const line of OWN_HEADER) console.log(line);
    for (const [label, r] of [["invoice c1", i1], ["invoice {html} c1", h1], ["invoice c8", i8], ["report c1", r1]] as const) console.log(ownRow(label, r, server));

    console.log(`\nWhere the CPU goes (ms of CPU per document; "renderd" is the server's Bun process, "client" this script; the last two columns are cores busy on average, ours and everything else on the machine):\n`);
    console.log(`| series | ${CPU_CLASSES.filter((c) => c !== "others").join(" | ")} | all ours | cores ours | cores others |`);
    console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const [label, cpu, n] of [
      ["invoice floor, 1 page", floor1.cpu!, floor.documents],
      ["invoice floor, hand-written HTML", handWritten.cpu!, floor.documents],
      ["invoice c1", c1.cpu!, i1.figures.documents],
      ["invoice {html} c1", html1.cpu!, h1.figures.documents],
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
    console.log(`\nTargets (issue 10):`);
    console.log(`- ${verdict(f1.p50 <= ISSUE_10.floorRatio * floor.p50)} invoice p50 ≤ ${ISSUE_10.floorRatio}× the floor: ${x(f1.p50, floor.p50)}`);
    console.log(`- ${verdict(f8.docsPerSecond >= ISSUE_10.c8DocsPerSecond)} invoice throughput at concurrency 8 ≥ ${ISSUE_10.c8DocsPerSecond} docs/s: ${f8.docsPerSecond.toFixed(1)}`);
    console.log(`- ${verdict(f8.docsPerSecond >= ISSUE_10.c8OverNewTab * newTab.docsPerSecond)} … and ≥ ${ISSUE_10.c8OverNewTab}× the new-tab reference: ${x(f8.docsPerSecond, newTab.docsPerSecond)}`);
    console.log(`- ${verdict(fr.p50 < ISSUE_10.reportP50)} 1000-row report (${pages} pages) p50 < ${ISSUE_10.reportP50} ms: ${fr.p50.toFixed(0)} ms`);
    console.log(`- ${verdict(memoryOk)} pool memory not growing from invoice ${MEMORY_AT} to ${TOTAL_INVOICES} (Pss trend < +10 %): ${mib(at500.pssBytes)} → ${mib(at1000.pssBytes)}, trend ${trend >= 0 ? "+" : ""}${mib(trend)}`);
    console.log(`\nTargets (issue 17: renderd ÷ its floor within each of the ${ROUNDS} alternating blocks, median of the blocks):`);
    const p50 = (f: Figures) => f.p50;
    const closeness = {
      c1: blockRatio(c1.parts, floor1.parts, p50),
      c1Html: blockRatio(html1.parts, floor1.parts, p50),
      c8: blockRatio(c8.parts, floor2.parts, (f) => f.docsPerSecond),
      report: blockRatio(report1.parts, reportFloor.parts, p50),
      c8Cpu: c8.cpu!,
      c8Documents: i8.figures.documents,
      poolFloorCpu: floor2.cpu!,
      poolFloorDocuments: floorPool.documents,
    };
    for (const line of closenessLines(closeness)) console.log(line);
    // Own time and CPU read inside the compilers' warm-up without --settle: say which server the table describes.
    const blocks = SETTLE > 0 ? `its blocks after ${SETTLE} invoices to settle` : "inside the compilers' warm-up: --settle 1500 reads a server that has been running";
    console.log(`\nIssue 32 (ratios and renderd's own ms; "now" is this run, ${blocks}):\n`);
    for (const line of issue32Table(closeness, ownOf(i1, server))) console.log(line);
  } finally {
    await server.stop();
  }
}

if (values.help) console.log(`${USAGE}\n\nSee the header of bench/render.ts and docs/performance.md; it needs the machine alone (~3.5 minutes).`);
else await main();
