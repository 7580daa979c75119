import { resolve } from "node:path";
import { INVOICE_TEMPLATE, invoiceData } from "./documents";
import { drive, publishTemplate, startServer } from "./server";
const ROOT = resolve(import.meta.dir, "..");
const server = await startServer({ binary: resolve(ROOT, "dist/renderd"), command: [resolve(ROOT, "node_modules/.bin/bun"), "--cpu-prof-md", "--cpu-prof-dir=/tmp/perf-prof", resolve(ROOT, "cli/main.ts"), "serve"] });
try {
  const id = await publishTemplate(server, "inv", INVOICE_TEMPLATE);
  const body = JSON.stringify({ templateId: id, data: invoiceData() });
  await drive(server, "w", body, 30, 2);
  const r = await drive(server, "c8", body, 600, 8);
  console.log(r.figures.docsPerSecond);
} finally { await server.stop(); }
