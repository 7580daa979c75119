/**
 * bench/calls: what renderd makes Chromium do beyond the floor, call by call (issue 17). One browser, one warm page per
 * variant, the bench's invoice or 1000-row report HTML (as renderd compiles it) printed in alternating blocks; each
 * variant adds one thing the pool does to the floor's setContent + pdf: the guard's route on every request (`route`),
 * print media emulation (`media`), the layout check's evaluate (`layout`), the pool's page range (`range`), all four
 * (`all`), and RenderPool.render() itself (its own browser, renderd's switches and page recycling) once per heap bound
 * in HEAPS (MiB, as RENDER_MAX_HEAP_BYTES; 0: none; default "1024,512,0"). Chromium's CPU per document is read from
 * /proc for every Chromium process of this script (the idle ones add ~0).
 *
 *   [HEAPS=1024,512,0] bun bench/calls.ts [invoice|report] [documents per block, 60] [blocks, 5]
 */
import { chromium, type Page } from "playwright-core";
import { chromiumArgs } from "../src/render/browser";
import { templateJob } from "../src/render/job";
import { checkLayout } from "../src/render/layout";
import { RenderPool } from "../src/render/pool";
import { INVOICE_TEMPLATE, invoiceData, REPORT_TEMPLATE, reportData } from "./documents";
import { CONTEXT, PDF_OPTIONS } from "./floor";
import { chromiumProcesses, measureCpu } from "./measure";

type Variant = { route?: boolean; media?: boolean; layout?: boolean; range?: boolean };
const VARIANTS: Record<string, Variant> = {
  floor: {},
  route: { route: true },
  media: { media: true },
  layout: { layout: true },
  range: { range: true },
  all: { route: true, media: true, layout: true, range: true },
};

const which = process.argv[2] ?? "invoice";
const n = Number(process.argv[3] ?? 60);
const blocks = Number(process.argv[4] ?? 5);
const job = await (which === "report" ? templateJob({ source: REPORT_TEMPLATE, assetIds: [] }, reportData(1000), () => null) : templateJob({ source: INVOICE_TEMPLATE, assetIds: [] }, invoiceData(), () => null));

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: chromiumArgs({ asRoot: process.getuid?.() === 0 }) });
const heaps = (process.env.HEAPS ?? "1024,512,0").split(",").map(Number);
const pools = new Map(heaps.map((mib) => [`pool, heap ${mib || "unset"}`, new RenderPool({ size: 1, chromiumPath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", timeoutMs: 60_000, maxHeapBytes: mib ? mib * 1024 * 1024 : undefined })]));
const pages: Record<string, Page> = {};
try {
  for (const pool of pools.values()) await pool.start();
  for (const [name, v] of Object.entries(VARIANTS)) {
    const context = await browser.newContext(CONTEXT);
    if (v.route) await context.route("**/*", (route) => route.abort("blockedbyclient"));
    pages[name] = await context.newPage();
    if (v.media) await pages[name]!.emulateMedia({ media: "print" });
  }
  const one = async (name: string) => {
    const pool = pools.get(name);
    if (pool) return void (await pool.render({ html: job.html, pdf: job.pdf }));
    const v = VARIANTS[name]!;
    const page = pages[name]!;
    await page.setContent(job.html, { waitUntil: "load" });
    if (v.layout) await checkLayout(page, job.html);
    await page.pdf({ ...PDF_OPTIONS, ...job.pdf, ...(v.range ? { pageRanges: "1-501" } : {}) });
  };
  const names = [...Object.keys(VARIANTS), ...pools.keys()];
  for (const name of names) for (let i = 0; i < 3; i++) await one(name);
  const sums = new Map<string, { ms: number[]; renderers: number; browser: number; other: number }>();
  for (let block = 0; block < blocks; block++)
    for (const name of names) {
      const ms: number[] = [];
      const { cpu } = await measureCpu(() => chromiumProcesses(process.pid).map((p) => p.pid), -1, async () => {
        for (let i = 0; i < n; i++) {
          const t = performance.now();
          await one(name);
          ms.push(performance.now() - t);
        }
      });
      const sum = sums.get(name) ?? { ms: [], renderers: 0, browser: 0, other: 0 };
      sum.ms.push(...ms);
      sum.renderers += cpu.renderers;
      sum.browser += cpu.browser;
      sum.other += cpu["gpu, utility"];
      sums.set(name, sum);
    }
  console.log(`${which}: HTML ${job.html.length} characters, ${blocks} blocks of ${n}; Chromium CPU ms per document\n`);
  console.log("| variant | p50 ms | browser | renderers | gpu, utility | Chromium |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
  const docs = n * blocks;
  for (const [name, s] of sums) {
    s.ms.sort((a, b) => a - b);
    const f = (x: number) => (x / docs).toFixed(1);
    console.log(`| ${name} | ${s.ms[s.ms.length >> 1]!.toFixed(1)} | ${f(s.browser)} | ${f(s.renderers)} | ${f(s.other)} | ${f(s.browser + s.renderers + s.other)} |`);
  }
} finally {
  await browser.close();
  for (const pool of pools.values()) await pool.stop();
}
