import { resolve } from "node:path";
import { drive, startServer } from "./server";
import { splitOf } from "./report";
const binary = resolve(import.meta.dir, "..", process.argv[2] ?? "dist/renderd");
const s = await startServer({ binary, env: { RENDERD_BENCH_PRINT_MS: "0" } });
const body = JSON.stringify({ document: { type: "container", children: [{ type: "text", text: "Hello" }] } });
const html = JSON.stringify({ html: "<p>Hello</p>" });
console.log("started"); const w = await drive(s, "warm", html, 20, 1); console.log("warm", w.timings.map(t=>t.ms.toFixed(1)).join(" "));
for (const [n, b] of [["doc", body], ["html", html], ["doc", body], ["html", html]] as const) {
  const r = await drive(s, n, b, 300, 1);
  const ms = r.timings.map((t) => t.ms).sort((a, b) => a - b);
  const sp = splitOf(r, s.poolMs);
  console.log(n, "p50", ms[150]!.toFixed(2), "p90", ms[270]!.toFixed(2), JSON.stringify(sp));
}
const h: number[] = [];
for (let i = 0; i < 300; i++) { const t = performance.now(); await (await fetch(`${s.base}/health`)).text(); h.push(performance.now() - t); }
h.sort((a, b) => a - b); console.log("health p50", h[150]!.toFixed(2));
await s.stop();
