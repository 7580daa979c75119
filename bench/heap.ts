/**
 * bench/heap: a renderer's CPU per 1000-row report (22 pages) under V8 heap switches (issue 17): no bound, the bound
 * RENDER_MAX_HEAP_BYTES sets at its default (512 MiB) alone, that bound with the growing percent renderd adds
 * (src/render/browser.ts), and 1 GiB. One browser per variant, one warm page each, the report's HTML as renderd
 * compiles it, printed in alternating blocks; Chromium's CPU from /proc. Figures in docs/pool.md "Limits".
 *
 *   bun bench/heap.ts [documents per block, 8] [blocks, 5]
 */
import { chromium, type Page } from "playwright-core";
import { chromiumArgs, commandLine, descendants, listProcesses } from "../src/render/browser";
import { templateJob } from "../src/render/job";
import { REPORT_TEMPLATE, reportData } from "./documents";
import { CONTEXT, PDF_OPTIONS } from "./floor";
import { measureCpu } from "./measure";

const VARIANTS: Record<string, string | null> = {
  "no bound": null,
  "512 MiB": "--max-old-space-size=512",
  "512 MiB, growing 300 % (renderd)": "--max-old-space-size=512 --heap-growing-percent=300",
  "1 GiB": "--max-old-space-size=1024",
};
const n = Number(process.argv[2] ?? 8);
const blocks = Number(process.argv[3] ?? 5);
const job = await templateJob({ source: REPORT_TEMPLATE, assetIds: [] }, reportData(1000), () => null);

const browsers = await Promise.all(
  Object.values(VARIANTS).map((flags) =>
    chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: [...chromiumArgs({ asRoot: process.getuid?.() === 0 }), ...(flags ? [`--js-flags=${flags}`] : [])] }),
  ),
);
try {
  const pages: Page[] = await Promise.all(browsers.map(async (b) => (await b.newContext(CONTEXT)).newPage()));
  // A variant's processes: the browser whose own command line carries its switches (or none), and its children.
  const pidsOf = (flags: string | null) => {
    const all = descendants(process.pid, listProcesses());
    const roots = all.filter((p) => {
      const args = commandLine(p.pid);
      if (!args[0]?.includes("chromium") || args.some((a) => a.startsWith("--type="))) return false;
      return flags ? args.includes(`--js-flags=${flags}`) : !args.some((a) => a.startsWith("--js-flags"));
    });
    return roots.flatMap((r) => [r.pid, ...descendants(r.pid, all).map((p) => p.pid)]);
  };
  const print = async (page: Page) => {
    await page.setContent(job.html, { waitUntil: "load" });
    await page.pdf({ ...PDF_OPTIONS, ...job.pdf });
  };
  for (const page of pages) for (let i = 0; i < 2; i++) await print(page);
  const names = Object.keys(VARIANTS);
  const sums = names.map(() => ({ renderers: 0, ms: [] as number[] }));
  for (let block = 0; block < blocks; block++)
    for (const [i, name] of names.entries()) {
      const { cpu } = await measureCpu(() => pidsOf(VARIANTS[name]!), -1, async () => {
        for (let k = 0; k < n; k++) {
          const t = performance.now();
          await print(pages[i]!);
          sums[i]!.ms.push(performance.now() - t);
        }
      });
      sums[i]!.renderers += cpu.renderers;
    }
  console.log(`report: HTML ${job.html.length} characters, ${blocks} blocks of ${n}\n`);
  console.log("| V8 switches | p50 ms | renderer CPU ms per report |");
  console.log("| --- | ---: | ---: |");
  for (const [i, name] of names.entries()) {
    const s = sums[i]!;
    s.ms.sort((a, b) => a - b);
    console.log(`| ${name} | ${s.ms[s.ms.length >> 1]!.toFixed(0)} | ${(s.renderers / (n * blocks)).toFixed(0)} |`);
  }
} finally {
  for (const b of browsers) await b.close();
}
