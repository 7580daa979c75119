/** bench/soak: the fault probe of issue 26, kept so anyone can run it again. The compiled binary serves from a DATA_DIR
 * on a tmpfs of its own while clients create renders (half answered 202 at once, half with ?wait, each with an
 * Idempotency-Key and retried once with it when the connection broke), and each cycle deals one fault in turn:
 *
 *   kill -9     the server is killed at a random moment and started again on the same DATA_DIR
 *   disk-full   the tmpfs is filled to its last byte for a second, then freed (needs root for mount(8))
 *   chromium    a browser of the pool is killed with SIGKILL
 *   fuzz        malformed requests: odd request lines, Hosts and headers, random bytes and bodies
 *
 * After every cycle the store is checked (PRAGMA integrity_check, every acknowledged render present, the PDF of every
 * render answered succeeded matching its sha256); at the end the server drains and the figures are printed:
 * acknowledged, lost (acknowledged, not in the store), stuck (not final after the drain), duplicated (two renders
 * for one Idempotency-Key), failed, integrity. Not run by CI (docs/operations.md has a 200-cycle run's figures).
 *
 *   bun bench/soak.ts [--cycles 200] [--seed 26]
 */
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Database } from "bun:sqlite";
import type { Subprocess } from "bun";
import { CLI_ACTOR } from "../src/auth/actor";
import { systemClock } from "../src/lib/clock";
import { createApiKey } from "../src/modules/api-keys/service";
import { getWorkspace } from "../src/modules/workspaces/service";
import { contentKey } from "../src/store/files";
import { openStore } from "../src/store/open";

const { values } = parseArgs({ options: { cycles: { type: "string", default: "200" }, seed: { type: "string", default: "26" } } });
const CYCLES = Number(values.cycles);
const ROOT = resolve(import.meta.dir, "..");
const BINARY = join(ROOT, "dist/renderd");
const MiB = 1024 * 1024;
const CLIENTS = 4;
const PROBES = ["kill -9", "disk-full", "chromium", "fuzz"] as const;
type Probe = (typeof PROBES)[number];

// A seeded generator (mulberry32): a run replays with its --seed.
let seed = Number(values.seed) >>> 0;
function random(): number {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo));

if (!existsSync(BINARY)) throw new Error("dist/renderd is missing: run npm run build first");
const root = process.getuid?.() === 0;
const work = mkdtempSync(join(tmpdir(), "renderd-soak-"));
const mount = join(work, "tmpfs");
mkdirSync(mount);
if (root && Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${512 * MiB}`, "tmpfs", mount]).exitCode !== 0) throw new Error("mount -t tmpfs failed");
const dataDir = join(mount, "data");
const filler = join(mount, "filler");

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

interface Server {
  proc: Subprocess<"ignore", "ignore", "ignore">;
  url: string;
  internal: string;
  port: number;
}

async function start(): Promise<Server> {
  const [port, internalPort] = [freePort(), freePort()];
  const proc = Bun.spawn([BINARY, "serve", "--port", String(port), "--internal-port", String(internalPort), "--host", "127.0.0.1"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DATA_DIR: dataDir, LOG_LEVEL: "warn", RENDERD_ADMIN_PASSWORD: "soak-password-1", RENDER_WORKERS: "2", STORAGE_MIN_FREE_BYTES: String(16 * MiB), API_RATE_LIMIT_PER_MINUTE: "10000000" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`serve exited with ${proc.exitCode} while starting`);
    try {
      await fetch(`${url}/health`);
      break;
    } catch {
      if (i > 600) throw new Error("serve did not start in 30 s");
      await Bun.sleep(50);
    }
  }
  return { proc, url, internal: `http://127.0.0.1:${internalPort}`, port };
}

/** makeKey makes the clients' key, with allowances that let them keep the pool busy (the defaults allow 60 a minute). */
async function makeKey(): Promise<string> {
  const store = openStore(dataDir);
  try {
    await store.tx((tx) => tx.run("UPDATE workspaces SET max_active_renders = 40, renders_per_minute = 100000 WHERE slug = 'default'"));
    const workspace = await getWorkspace(store, "default");
    return (await createApiKey(store, systemClock, { actor: CLI_ACTOR, requestId: "req_soak" }, workspace.id, { name: "soak", scopes: ["render:create", "render:read"] })).secret;
  } finally {
    await store.close();
  }
}

// What the clients were told, and what they could not learn (the connection broke: retried once with the same key).
const acknowledged = new Map<string, string>(); // render id → idempotency key
const answeredSucceeded = new Set<string>();
const unanswered: { key: string; body: string; wait: boolean }[] = [];
const tally = { requests: 0, refused503: 0, errors5xx: 0, retried: 0, other: new Map<number, number>() };
let keyCounter = 0;

async function create(server: Server, apiKey: string, body: string, idempotencyKey: string, wait: boolean): Promise<"answered" | "broken"> {
  tally.requests += 1;
  let res: Response;
  try {
    res = await fetch(`${server.url}/v1/renders${wait ? "?wait=10" : ""}`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json", "idempotency-key": idempotencyKey },
      body,
    });
  } catch {
    return "broken";
  }
  const answer = (await res.json().catch(() => ({}))) as { id?: string; status?: string };
  if ((res.status === 202 || res.status === 200) && answer.id) {
    acknowledged.set(answer.id, idempotencyKey);
    if (res.status === 200 && answer.status === "succeeded") answeredSucceeded.add(answer.id);
  } else if (res.status === 503) {
    tally.refused503 += 1;
    // Refused while DATA_DIR is full: a client waits before it tries again, as Retry-After asks (more briefly here).
    await Bun.sleep(20);
  } else if (res.status >= 500) tally.errors5xx += 1;
  else if (res.status === 429) await Bun.sleep(50);
  else tally.other.set(res.status, (tally.other.get(res.status) ?? 0) + 1);
  return "answered";
}

/** clients create renders until `until` resolves. */
async function load(server: Server, apiKey: string, until: Promise<unknown>): Promise<void> {
  let done = false;
  void until.then(() => (done = true));
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; !done; i++) {
        const key = `soak-${++keyCounter}`;
        const body = JSON.stringify({ html: `<h1>soak ${key}</h1><p>${"text ".repeat(between(1, 400))}</p>`, metadata: { key } });
        const wait = client % 2 === 1;
        if ((await create(server, apiKey, body, key, wait)) === "broken") {
          unanswered.push({ key, body, wait });
          return;
        }
      }
    }),
  );
}

/** retryUnanswered sends each request whose answer was lost once more, with its Idempotency-Key. */
async function retryUnanswered(server: Server, apiKey: string): Promise<void> {
  for (const r of unanswered.splice(0)) {
    tally.retried += 1;
    await create(server, apiKey, r.body, r.key, false);
  }
}

function alive(server: Server): boolean {
  return server.proc.exitCode === null;
}

function free(): number {
  const fs = statfsSync(dataDir);
  return fs.bavail * fs.bsize;
}

/** chromiumPids answers the Chromium browsers among the server's children. */
function chromiumPids(serverPid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === serverPid && /chrom/.test(stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")))) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const FUZZ_LINES = [
  "GET /health HTTP/2.0",
  "GET /he alth HTTP/1.1",
  "G(T /health HTTP/1.1",
  "GET health HTTP/1.1",
  "GET * HTTP/1.1",
  "GET http://x/v1/renders HTTP/1.1",
  "POST /zzzz/v1/auth/sign-in HTTP/1.1",
  "GET //v1/renders HTTP/1.1",
  "GET /v1/renders/../../etc/passwd HTTP/1.1",
  "GET /%00 HTTP/1.1",
];
const PARSER_STATUSES = new Set([400, 408, 413, 431, 505]);
const fuzzTally = { requests: 0, errors5xx: 0, notEnvelope: 0 };

/** fuzzOnce sends one malformed request on a socket of its own and judges the answer. */
function fuzzOnce(server: Server, apiKey: string): Promise<void> {
  const hosts = ["x", "app", "", "a/b", "h".repeat(300), "127.0.0.1"];
  const line = FUZZ_LINES[between(0, FUZZ_LINES.length)]!;
  const kind = between(0, 4);
  let request: string;
  if (kind === 0) request = Buffer.from(Array.from({ length: between(1, 200) }, () => between(0, 256))).toString("latin1");
  else if (kind === 1) request = `${line}\r\nHost: ${hosts[between(0, hosts.length)]}\r\nConnection: close\r\n\r\n`;
  else if (kind === 2) request = `GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: ${"a".repeat(between(10_000, 40_000))}\r\nConnection: close\r\n\r\n`;
  else {
    const body = [`{"html":`, `{"html":"<p>x</p>","metadata":${"[".repeat(200)}`, `{"template":{"id":1}}`, "\u0000\u0001", `{"html":"x","extra":true}`][between(0, 5)]!;
    request = `POST /v1/renders HTTP/1.1\r\nHost: ${hosts[between(0, hosts.length)]}\r\nx-api-key: ${apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  }
  fuzzTally.requests += 1;
  return new Promise((done) => {
    const socket = connect(server.port, "127.0.0.1", () => socket.write(request, "latin1"));
    let text = "";
    const timer = setTimeout(() => socket.destroy(), 3_000);
    socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      const status = Number(text.split(" ")[1]);
      const body = text.slice(text.indexOf("\r\n\r\n") + 4);
      if (status >= 500 && status !== 503 && status !== 505) fuzzTally.errors5xx += 1;
      else if (status >= 400 && !(PARSER_STATUSES.has(status) && body === "")) {
        try {
          if (!JSON.parse(body).error?.code) fuzzTally.notEnvelope += 1;
        } catch {
          fuzzTally.notEnvelope += 1;
        }
      }
      done();
    });
  });
}

// The store as a reader sees it: its integrity, the acknowledged renders present, the PDFs of those answered succeeded.
const integrity = { checks: 0, ok: 0, pdfsChecked: 0, pdfsMismatched: 0 };
const checkedPdfs = new Set<string>();
function checkStore(): void {
  const db = new Database(join(dataDir, "renderd.db"), { readonly: true });
  try {
    integrity.checks += 1;
    const result = db.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
    if (result.length === 1 && result[0]!.integrity_check === "ok") integrity.ok += 1;
    for (const id of answeredSucceeded) {
      if (checkedPdfs.has(id)) continue;
      const row = db.query("SELECT status, output_sha256 FROM renders WHERE id = $id").get({ $id: id }) as { status: string; output_sha256: string } | null;
      integrity.pdfsChecked += 1;
      checkedPdfs.add(id);
      const path = row && join(dataDir, contentKey("outputs", row.output_sha256));
      const ok = row?.status === "succeeded" && path && existsSync(path) && createHash("sha256").update(readFileSync(path)).digest("hex") === row.output_sha256;
      if (!ok) integrity.pdfsMismatched += 1;
    }
  } finally {
    db.close();
  }
}

const probes: Record<Probe, { count: number; ms: number }> = { "kill -9": { count: 0, ms: 0 }, "disk-full": { count: 0, ms: 0 }, chromium: { count: 0, ms: 0 }, fuzz: { count: 0, ms: 0 } };
const outages = { diskFull: 0, diedDuringDiskFull: 0, recoveryMs: [] as number[], chromiumKilled: 0 };

const started = performance.now();
let server = await start();
const apiKey = await makeKey();
try {
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const probe = PROBES[cycle % PROBES.length]!;
    if (probe === "disk-full" && !root) continue;
    const t0 = performance.now();
    await retryUnanswered(server, apiKey);
    if (probe === "kill -9") {
      const killAfter = between(50, 1500);
      await load(server, apiKey, Bun.sleep(killAfter).then(() => server.proc.kill("SIGKILL")));
      await server.proc.exited;
      checkStore();
      server = await start();
    } else if (probe === "disk-full") {
      outages.diskFull += 1;
      await load(
        server,
        apiKey,
        (async () => {
          await Bun.sleep(between(100, 500));
          try {
            appendFileSync(filler, Buffer.alloc(free() + MiB));
          } catch {
            // ENOSPC: full to the last byte
          }
          await Bun.sleep(1_000);
          if (!alive(server)) outages.diedDuringDiskFull += 1;
          rmSync(filler, { force: true });
          const freed = performance.now();
          while ((await fetch(`${server.url}/health`).then((r) => r.status, () => 0)) !== 200) await Bun.sleep(20);
          outages.recoveryMs.push(performance.now() - freed);
        })(),
      );
      if (!alive(server)) server = await start();
    } else if (probe === "chromium") {
      await load(
        server,
        apiKey,
        (async () => {
          await Bun.sleep(between(100, 800));
          const pids = chromiumPids(server.proc.pid);
          if (pids.length) {
            process.kill(pids[between(0, pids.length)]!, "SIGKILL");
            outages.chromiumKilled += 1;
          }
          await Bun.sleep(1_000);
        })(),
      );
    } else {
      const fuzzing = Promise.all(Array.from({ length: 40 }, () => fuzzOnce(server, apiKey)));
      await load(server, apiKey, fuzzing);
    }
    if (!alive(server)) throw new Error(`cycle ${cycle} (${probe}): serve died`);
    if (probe !== "kill -9") checkStore();
    probes[probe].count += 1;
    probes[probe].ms += performance.now() - t0;
    if ((cycle + 1) % 20 === 0) console.log(`soak: ${cycle + 1} cycles, ${acknowledged.size} renders acknowledged, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  await retryUnanswered(server, apiKey);
  // The drain: every acknowledged render must reach a final state.
  const deadline = Date.now() + 180_000;
  const db = () => new Database(join(dataDir, "renderd.db"), { readonly: true });
  let open = 0;
  do {
    const d = db();
    open = (d.query("SELECT COUNT(*) AS n FROM renders WHERE status IN ('queued', 'processing')").get() as { n: number }).n;
    d.close();
    if (open) await Bun.sleep(500);
  } while (open && Date.now() < deadline);
  checkStore();
  const d = db();
  const rows = new Map((d.query("SELECT id, status, metadata FROM renders").all() as { id: string; status: string; metadata: string }[]).map((r) => [r.id, r]));
  d.close();
  const lost = [...acknowledged.keys()].filter((id) => !rows.has(id)).length;
  const stuck = [...acknowledged.keys()].filter((id) => ["queued", "processing"].includes(rows.get(id)?.status ?? "")).length;
  const failed = [...acknowledged.keys()].filter((id) => rows.get(id)?.status === "failed").length;
  const perKey = new Map<string, number>();
  for (const r of rows.values()) {
    const key = (JSON.parse(r.metadata) as { key?: string }).key;
    if (key) perKey.set(key, (perKey.get(key) ?? 0) + 1);
  }
  const duplicated = [...perKey.values()].filter((n) => n > 1).length;
  const seconds = (performance.now() - started) / 1000;
  const recovery = outages.recoveryMs.sort((a, b) => a - b);
  console.log(`soak: ${Object.values(probes).reduce((a, p) => a + p.count, 0)} cycles in ${seconds.toFixed(0)} s (seed ${values.seed}): ${PROBES.map((p) => `${probes[p].count} ${p}`).join(", ")}`);
  console.log(`soak: acknowledged ${acknowledged.size}, lost ${lost}, stuck ${stuck}, duplicated ${duplicated}, failed ${failed}; integrity ok ${integrity.ok} of ${integrity.checks} checks, PDFs answered succeeded checked ${integrity.pdfsChecked}, mismatched ${integrity.pdfsMismatched}`);
  console.log(`soak: requests ${tally.requests} (retried after a broken connection ${tally.retried}), 503 ${tally.refused503}, other 5xx ${tally.errors5xx}, other refusals ${JSON.stringify(Object.fromEntries(tally.other))}`);
  if (root)
    console.log(
      `soak: disk full ${outages.diskFull} times, serve died ${outages.diedDuringDiskFull}; /health back after freeing: median ${recovery[Math.floor(recovery.length / 2)]?.toFixed(0)} ms, max ${recovery.at(-1)?.toFixed(0)} ms`,
    );
  else console.log("soak: disk-full cycles skipped: mount(8) needs root");
  console.log(`soak: Chromium killed ${outages.chromiumKilled} times; fuzz ${fuzzTally.requests} malformed requests, 5xx ${fuzzTally.errors5xx}, answers neither in the envelope nor Bun's parser's fixed ones ${fuzzTally.notEnvelope}`);
} finally {
  if (server.proc.exitCode === null) {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
  }
  rmSync(filler, { force: true });
  if (root) Bun.spawnSync(["umount", "-l", mount]);
  rmSync(work, { recursive: true, force: true });
}
