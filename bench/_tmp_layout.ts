import { templateJob } from "../src/render/job";
import { checkLayout } from "../src/render/layout";
import { REPORT_TEMPLATE, reportData } from "./documents";
import { launchBrowser } from "./floor";
const job = templateJob({ source: REPORT_TEMPLATE, assetIds: [] }, reportData(1000), () => null);
const b = await launchBrowser();
const ctx = await b.newContext({ javaScriptEnabled: false });
const p = await ctx.newPage();
for (let i = 0; i < 8; i++) {
  let t = performance.now();
  await p.setContent(job.html, { waitUntil: "load" });
  const set = performance.now() - t; t = performance.now();
  await checkLayout(p, job.html);
  const check = performance.now() - t; t = performance.now();
  await p.pdf({ ...job.pdf, printBackground: true, pageRanges: "1-501" } as any);
  const pdf = performance.now() - t; t = performance.now();
  await p.setContent("");
  console.log({ set: set.toFixed(0), check: check.toFixed(0), pdf: pdf.toFixed(0), reset: (performance.now() - t).toFixed(0) });
}
await b.close();
