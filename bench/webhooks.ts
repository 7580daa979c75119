/**
 * bench/webhooks: deliveries per second and the delay from render end to first attempt (spec 6.2 (3)).
 * Starts renderd in this process and a receiver in a child process on 127.0.0.1 (a receiver never shares renderd's thread),
 * ends 10,000 renders across a few workspaces' endpoints through the real hand-off (enqueueEndEvent inside a transaction),
 * and prints the figures.
 *
 *   bun bench/webhooks.ts [--events 10000] [--endpoints 4] [--rate 0] [--batch 10]
 *
 * --rate: render ends per second, 0 = as fast as possible. --batch: render ends written between two yields to the event loop;
 * real render ends are separate callbacks (1), a larger batch models a thread busy with other work.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config";
import { systemClock } from "../src/lib/clock";
import { createLogger } from "../src/logger";
import { CLI_ACTOR } from "../src/auth/actor";
import { createWebhookEndpoint } from "../src/modules/webhook-endpoints/service";
import { createWorkspace } from "../src/modules/workspaces/service";
import { startServer } from "../src/server";
import { resolveHost } from "../src/webhooks/destinations";
import { enqueueEndEvent } from "../src/webhooks/events";

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "10000" },
    endpoints: { type: "string", default: "4" },
    rate: { type: "string", default: "0" },
    batch: { type: "string", default: "10" },
    receiver: { type: "boolean", default: false },
  },
});
const EVENTS = Number(values.events);
const ENDPOINTS = Number(values.endpoints);
const RATE = Number(values.rate);
const CHUNK = Number(values.batch);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Stats {
  received: number;
  lastReceivedAt: number;
  delays: number[];
}

if (values.receiver) {
  // The child: record each event's delay from its createdAt (render end) to its arrival; GET /stats reports them.
  const stats: Stats = { received: 0, lastReceivedAt: 0, delays: [] };
  const receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (request.method === "GET") return Response.json(stats);
      const event = JSON.parse(await request.text()) as { createdAt: string };
      stats.lastReceivedAt = Date.now();
      stats.delays.push(stats.lastReceivedAt - Date.parse(event.createdAt));
      stats.received += 1;
      return new Response(null, { status: 204 });
    },
  });
  process.stdout.write(`${receiver.port}\n`);
  await new Promise(() => {});
}

const child = Bun.spawn([process.execPath, import.meta.path, "--receiver"], { stdout: "pipe", stderr: "inherit" });
const reader = child.stdout.getReader();
const port = Number(new TextDecoder().decode((await reader.read()).value).trim());
const receiverUrl = `http://127.0.0.1:${port}`;

const dataDir = mkdtempSync(join(tmpdir(), "renderd-bench-webhooks-"));
const config = loadConfig({
  DATA_DIR: dataDir,
  PORT: "0",
  INTERNAL_PORT: "0",
  HOST: "127.0.0.1",
  LOG_LEVEL: "silent",
  RENDERD_ADMIN_PASSWORD: "bench-password-1",
  WEBHOOK_ALLOW_HTTP: "1",
  WEBHOOK_ALLOW_PRIVATE: "1",
});
const server = await startServer({ config, log: createLogger("silent") });
const { store } = server;
const ctx = { actor: CLI_ACTOR, requestId: "bench" };
const workspaces: string[] = [];
for (let i = 0; i < ENDPOINTS; i++) {
  const ws = await store.tx((tx) => createWorkspace(tx, systemClock, ctx, { name: `Bench ${i}`, slug: `bench-${i}` }));
  await createWebhookEndpoint(store, systemClock, ctx, ws.id, { url: `${receiverUrl}/hook/${i}`, eventTypes: ["render.succeeded", "render.failed"] }, {
    secretKey: config.secretKey,
    destinations: { allowHttp: true, allowPrivate: true, resolve: resolveHost },
  });
  workspaces.push(ws.id);
}

const started = performance.now();
const startedAt = Date.now();
for (let i = 0; i < EVENTS; i += CHUNK) {
  // Each render ends in a transaction of its own, as rendering will call it.
  for (let j = i; j < Math.min(EVENTS, i + CHUNK); j++) {
    await store.tx(async (tx) =>
      enqueueEndEvent(tx, systemClock, {
        workspaceId: workspaces[j % workspaces.length]!,
        renderId: `rnd_bench${j}`,
        status: j % 10 === 0 ? "failed" : "succeeded",
        test: false,
        errorCode: "RENDER_TIMEOUT",
      }),
    );
  }
  // Yield between chunks (renders end over time); with --rate, keep to that many per second.
  const due = RATE > 0 ? ((i + CHUNK) / RATE) * 1000 - (performance.now() - started) : 0;
  await Bun.sleep(Math.max(0, due));
}
const enqueuedMs = performance.now() - started;
let stats: Stats;
do {
  await Bun.sleep(50);
  stats = (await (await fetch(`${receiverUrl}/stats`)).json()) as Stats;
} while (stats.received < EVENTS);
await server.webhooks.runOnce();
const { received, delays } = stats;
const totalMs = stats.lastReceivedAt - startedAt;
delays.sort((a, b) => a - b);

const attempts = (await store.get<{ n: number; ok: number }>("SELECT COUNT(*) AS n, SUM(status = 'succeeded') AS ok FROM webhook_deliveries"))!;
console.log(
  [
    `renderd webhooks benchmark (Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs)`,
    `events: ${EVENTS} across ${ENDPOINTS} endpoints, ${RATE > 0 ? `${RATE} render ends/s` : "as fast as possible"}, yielding every ${CHUNK}`,
    `enqueued in ${enqueuedMs.toFixed(0)} ms (${((EVENTS / enqueuedMs) * 1000).toFixed(0)} events/s, one transaction each)`,
    `delivered ${received} in ${totalMs} ms: ${((received / totalMs) * 1000).toFixed(0)} deliveries/s (${attempts.ok}/${attempts.n} rows succeeded)`,
    `delay render end → first attempt received: p50 ${percentile(delays, 50)} ms, p95 ${percentile(delays, 95)} ms, p99 ${percentile(delays, 99)} ms, max ${delays.at(-1)} ms`,
  ].join("\n"),
);

await server.stop();
child.kill();
rmSync(dataDir, { recursive: true, force: true });
