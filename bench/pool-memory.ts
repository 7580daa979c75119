/**
 * bench/pool-memory: the pool's memory and CPU over a long run under one RENDER_RECYCLE_AFTER — invoices at concurrency 8,
 * with `--reports` of the 22-page report (at concurrency 2) in every step — the Pss of renderd's Chromium, idle, after
 * each step, and the CPU per render of its browser process and renderers in each step. Whether recycling pages buys
 * memory or CPU as pages age, and at what count (docs/pool.md "Recycling").
 *
 *   node_modules/.bin/bun run scripts/build.ts
 *   flock /tmp/renderd-chromium.lock node_modules/.bin/bun bench/pool-memory.ts [--recycle-after 1000] [--renders 3000]
 *     [--step 250] [--reports 0]
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { INVOICE_TEMPLATE, invoiceData, REPORT_TEMPLATE, reportData } from "./documents";
import { measureCpu, memory, serverProcesses } from "./measure";
import { mib } from "./report";
import { drive, publishTemplate, startServer } from "./server";

const { values } = parseArgs({
  options: {
    "recycle-after": { type: "string", default: "1000" },
    renders: { type: "string", default: "3000" },
    step: { type: "string", default: "250" },
    reports: { type: "string", default: "0" },
    binary: { type: "string", default: "dist/renderd" },
  },
});
const RENDERS = Number(values.renders);
const STEP = Number(values.step);
const REPORTS = Number(values.reports);

const server = await startServer({ binary: resolve(import.meta.dir, "..", values.binary!), env: { RENDER_RECYCLE_AFTER: values["recycle-after"]! } });
try {
  const invoice = JSON.stringify({ templateId: await publishTemplate(server, "Bench invoice", INVOICE_TEMPLATE), data: invoiceData() });
  const report = JSON.stringify({ templateId: await publishTemplate(server, "Bench report", REPORT_TEMPLATE), data: reportData(1000) });
  console.log(`RENDER_RECYCLE_AFTER=${values["recycle-after"]}, ${REPORTS} reports in every ${STEP} renders\n`);
  console.log("| renders | Pss after | browser CPU ms per render | renderers CPU ms per render |");
  console.log("| ---: | ---: | ---: | ---: |");
  for (let done = 0; done < RENDERS; done += STEP) {
    const { cpu } = await measureCpu(() => serverProcesses(server), server.pid, async () => {
      await drive(server, "invoices", invoice, STEP - REPORTS, 8);
      if (REPORTS > 0) await drive(server, "reports", report, REPORTS, 2);
    });
    // Idle for a moment, as the full bench reads it: the renders' own memory settles.
    await Bun.sleep(300);
    console.log(`| ${done + STEP} | ${mib(memory(server).pssBytes)} | ${(cpu.browser / STEP).toFixed(1)} | ${(cpu.renderers / STEP).toFixed(1)} |`);
  }
} finally {
  await server.stop();
}
