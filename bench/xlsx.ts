/**
 * bench/xlsx: a 100,000-row XLSX report (issue 17) — bench/documents.ts's report data, five columns (text, a number,
 * two EUR amounts through Intl, a date), written by src/render/xlsx-sheets.ts with exceljs's streaming WorkbookWriter.
 * Each run is a fresh process (`--child`) that reads the request body from a file, parses it and writes the workbook,
 * so its peak RSS (VmHWM) is the report's own: Bun, the JSON body and its parsed data included.
 * Goals: under 10 s and under 250 MB. The API's cell budget (MAX_REPORT_CELLS, 100,000 cells) is raised here: it
 * bounds a request, not what the writer can do.
 *
 *   bun bench/xlsx.ts [--rows 100000] [--runs 3]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildSheetsWorkbook } from "../src/render/xlsx";
import type { SheetDefinition } from "../src/render/sheets";

const { values } = parseArgs({ options: { rows: { type: "string", default: "100000" }, runs: { type: "string", default: "3" }, child: { type: "boolean", default: false }, body: { type: "string" } } });
const ROWS = Number(values.rows);
const GOAL = { seconds: 10, megabytes: 250 };

const SHEETS: SheetDefinition[] = [
  {
    name: "Movements",
    source: ["items"],
    title: "Stock movements",
    columns: [
      { header: "SKU", value: { path: ["sku"] } },
      { header: "Item", value: { path: ["name"] }, width: 40 },
      { header: "Qty", value: { path: ["qty"], format: { type: "number" } } },
      { header: "Unit price", value: { path: ["price"], format: { type: "currency", currency: "EUR" } } },
      { header: "Amount", value: { path: ["amount"], format: { type: "currency", currency: "EUR" } } },
      { header: "Date", value: { path: ["date"], format: { type: "date" } } },
    ],
  },
];

/** peakRssMb reads this process's peak resident set (VmHWM) from /proc. */
const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;

/** bodyOf answers the report request's data as JSON text: bench/documents.ts's rows, each with a date. It is imported
 * here only, so that the measured process loads nothing but the XLSX writer (documents.ts brings playwright along). */
async function bodyOf(rows: number): Promise<string> {
  const { reportData } = await import("./documents");
  const made = reportData(rows);
  const items = made.items.map((item, i) => ({ ...item, date: new Date(Date.UTC(2026, 0, 1 + (i % 90))).toISOString().slice(0, 10) }));
  return JSON.stringify({ ...made, items });
}

if (values.child) {
  // The data as the server has it: a request body, parsed.
  const body = readFileSync(values.body!, "utf8");
  const started = performance.now();
  const data = JSON.parse(body) as unknown;
  const built = performance.now();
  const xlsx = await buildSheetsWorkbook(data, SHEETS, { maxCells: ROWS * SHEETS[0]!.columns.length });
  console.log(JSON.stringify({ dataMs: built - started, writeMs: performance.now() - built, bytes: xlsx.byteLength, bodyMb: body.length / 2 ** 20, peakMb: peakRssMb() }));
} else {
  const dir = mkdtempSync(join(tmpdir(), "renderd-bench-xlsx-"));
  const file = join(dir, "body.json");
  writeFileSync(file, await bodyOf(ROWS));
  const runs: { dataMs: number; writeMs: number; bytes: number; bodyMb: number; peakMb: number }[] = [];
  for (let i = 0; i < Number(values.runs); i++) {
    const child = Bun.spawnSync([process.execPath, import.meta.path, "--child", "--rows", String(ROWS), "--body", file], { stderr: "inherit" });
    if (child.exitCode !== 0) throw new Error(`run ${i + 1} failed`);
    runs.push(JSON.parse(child.stdout.toString()));
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(`XLSX report, ${ROWS} rows × ${SHEETS[0]!.columns.length} columns (a ${runs[0]!.bodyMb.toFixed(1)} MB JSON body), ${runs.length} runs (each a fresh Bun process):\n`);
  console.log("| run | body parsed ms | workbook written ms | bytes | peak RSS MB |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  runs.forEach((r, i) => console.log(`| ${i + 1} | ${r.dataMs.toFixed(0)} | ${r.writeMs.toFixed(0)} | ${r.bytes} | ${r.peakMb.toFixed(0)} |`));
  const { verdict } = await import("./report");
  const worst = { seconds: Math.max(...runs.map((r) => r.writeMs)) / 1000, megabytes: Math.max(...runs.map((r) => r.peakMb)) };
  console.log(`\n- ${verdict(worst.seconds < GOAL.seconds)} written in under ${GOAL.seconds} s: slowest ${worst.seconds.toFixed(1)} s`);
  console.log(`- ${verdict(worst.megabytes < GOAL.megabytes)} peak RSS under ${GOAL.megabytes} MB: highest ${worst.megabytes.toFixed(0)} MB`);
}
