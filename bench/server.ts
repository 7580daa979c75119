/** bench/server: the server side of bench/render.ts — `renderd serve` started as a child process on a DATA_DIR of its
 * own, and renders driven over HTTP with `POST /v1/renders?wait=60`, timed at the render's own timestamps. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TemplateSource } from "../src/render/compile/model";
import { figures, type Figures } from "./floor";

const PASSWORD = "bench-password-1";

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

/** cli runs one admin command of `binary` on the bench's DATA_DIR (or DATABASE_URL) and answers its --json output. */
export function cli<T>(binary: string, env: Record<string, string>, ...args: string[]): T {
  const run = Bun.spawnSync([binary, ...args, "--json"], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`renderd ${args.join(" ")} failed: ${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString()) as T;
}

/** prepare makes the bench's workspace on the store `env` names through the CLI, which acts on the store directly: a
 * workspace of its own, allowances that never throttle, and answers its new API key. */
function prepare(binary: string, env: Record<string, string>): string {
  cli(binary, env, "migrate");
  cli(binary, env, "workspaces", "create", "Bench", "--slug", "bench");
  cli(binary, env, "allowances", "set", "--workspace", "bench", "--max-active-renders", "100000", "--renders-per-minute", "10000000");
  return cli<{ secret: string }>(binary, env, "keys", "create", "--workspace", "bench", "--name", "bench", "--scope", "render:create,render:read,template:write,template:publish,asset:manage,certificate:manage").secret;
}

export interface Server {
  base: string;
  key: string;
  pid: number;
  /** renderId → pool.render() ms, from the server's "render succeeded" lines. */
  poolMs: Map<string, number>;
  /** requestId → the steps of a POST /v1/renders?wait (accept, wait, answer), from the server's "request" lines. */
  requestLaps: Map<string, Record<string, number>>;
  /** renderId → the worker's own steps after the claim, ms to the hundredth (print, finish, hold, write, statements,
   * commit), from the same lines. */
  laps: Map<string, Record<string, number>>;
  stop(): Promise<void>;
}

/** ServerOptions: the binary (its `serve` unless `command` is given), RENDER_WORKERS, more environment, and `key`: the
 * API key of a shared store another server of the bench already prepared (then only `serve` runs). */
export interface ServerOptions {
  binary: string;
  workers?: string;
  env?: Record<string, string>;
  command?: string[];
  key?: string;
}

/** startServer prepares a DATA_DIR (a bench workspace whose allowances do not throttle, an API key) and serves it; with
 * `key`, the store (DATABASE_URL in `env`) is prepared already and the DATA_DIR only holds this process's temporary files. */
export async function startServer(options: ServerOptions): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), "renderd-bench-render-"));
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    INTERNAL_PORT: String(freePort()),
    HOST: "127.0.0.1",
    PUBLIC_URL: base,
    // The default level: a render's "render succeeded" line gives its pool.render() time, and costs what it costs in use.
    LOG_LEVEL: "info",
    RENDERD_ADMIN_PASSWORD: PASSWORD,
    API_RATE_LIMIT_PER_MINUTE: "10000000",
  };
  if (options.workers) env.RENDER_WORKERS = options.workers;
  Object.assign(env, options.env);
  const secret = options.key ?? prepare(options.binary, env);

  const child = Bun.spawn(options.command ?? [options.binary, "serve"], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
  const poolMs = new Map<string, number>();
  const laps = new Map<string, Record<string, number>>();
  const requestLaps = new Map<string, Record<string, number>>();
  const errors = new Set<string>();
  // Read the log (and keep the pipe drained): pino writes one JSON object per line.
  void (async () => {
    const reader = child.stdout.getReader();
    const decoder = new TextDecoder();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const lines = (rest + decoder.decode(value, { stream: true })).split("\n");
      rest = lines.pop()!;
      for (const line of lines) {
        // An error the server logs is what the bench must not hide (a 500 says nothing more); each kind once.
        if (/"level":(50|60)/.test(line)) {
          const kind = line.replace(/"(time|requestId|renderId|stack)":("[^"]*"|\d+),?/g, "");
          if (!errors.has(kind)) console.error(`renderd ${child.pid}: ${line}`);
          errors.add(kind);
        }
        const succeeded = line.includes("render succeeded");
        if (!succeeded && !line.includes('"phases"')) continue;
        try {
          const entry = JSON.parse(line) as { renderId: string; requestId: string; ms: number; phases?: Record<string, number> };
          if (!succeeded) requestLaps.set(entry.requestId, entry.phases!);
          else {
            poolMs.set(entry.renderId, entry.ms);
            if (entry.phases) laps.set(entry.renderId, entry.phases);
          }
        } catch {
          // not a log object
        }
      }
    }
  })();
  const stop = async () => {
    child.kill("SIGTERM");
    await child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    if (i > 600) {
      await stop();
      throw new Error("renderd did not start within 30 s");
    }
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await Bun.sleep(50);
  }
  return {
    base,
    key: secret,
    pid: child.pid,
    poolMs,
    laps,
    requestLaps,
    stop,
  };
}

/** api calls the API with the bench's key and answers the JSON (or text) body; anything but 2xx throws. */
export async function api<T>(server: Server, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { "x-api-key": server.key, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${answer.slice(0, 500)}`);
  return (res.headers.get("content-type") ?? "").includes("json") ? (JSON.parse(answer) as T) : (answer as T);
}

/** publishTemplate creates a template and publishes its version 1. */
export async function publishTemplate(server: Server, name: string, source: TemplateSource): Promise<string> {
  const { id } = await api<{ id: string }>(server, "POST", "/v1/templates", { name, ...source });
  await api(server, "POST", `/v1/templates/${id}/publish`);
  return id;
}

// Driving renders.

/** Timing is one render as the client saw it, split at the render's own timestamps (server clock = client clock here). */
export interface Timing {
  id: string;
  /** The request's id (x-request-id), which names its "request" log line. */
  requestId: string;
  ms: number;
  /** POST sent → createdAt: request in, auth, data check, compile to HTML, allowance charge (createdAt is stamped last). */
  accept: number;
  /** createdAt → startedAt: queued until the worker claims it. */
  queue: number;
  /** startedAt → finishedAt: pool.render() (page wait, setContent, pdf), PDF written, final state committed. */
  print: number;
  /** finishedAt → 200 read: the final transaction's COMMIT (finishedAt is stamped inside it), waking the ?wait
   * request, reading the render back, signing its URL, the answer. */
  answer: number;
  pages: number;
}

/** renderOnce creates one render with `?wait=60` and answers its timing; anything but a 200 `succeeded` throws. */
export async function renderOnce(server: Server, body: string): Promise<Timing> {
  const sent = Date.now();
  const t = performance.now();
  const res = await fetch(`${server.base}/v1/renders?wait=60`, { method: "POST", headers: { "x-api-key": server.key, "content-type": "application/json" }, body });
  const answer = await res.text();
  const ms = performance.now() - t;
  const done = Date.now();
  if (res.status !== 200) throw new Error(`render: ${res.status} ${answer.slice(0, 500)}`);
  const r = JSON.parse(answer) as { id: string; status: string; createdAt: string; startedAt: string; finishedAt: string; result: { pages: number } };
  if (r.status !== "succeeded") throw new Error(`render ${r.id} ended ${r.status}`);
  const [created, started, finished] = [r.createdAt, r.startedAt, r.finishedAt].map(Date.parse) as [number, number, number];
  return { id: r.id, requestId: res.headers.get("x-request-id")!, ms, accept: created - sent, queue: started - created, print: finished - started, answer: done - finished, pages: r.result.pages };
}

export interface Run {
  figures: Figures;
  timings: Timing[];
}

/** drive renders n documents with `concurrency` clients at once; latency is POST to the 200 answer (`?wait=60`). Given
 * several servers (processes of one shared store), the requests go to each in turn, as a round-robin balancer sends them. */
export async function drive(servers: Server | Server[], name: string, body: string, n: number, concurrency: number): Promise<Run> {
  const targets = Array.isArray(servers) ? servers : [servers];
  const timings: Timing[] = [];
  let left = n;
  let next = 0;
  const wall = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) timings.push(await renderOnce(targets[next++ % targets.length]!, body));
    }),
  );
  return { figures: figures(name, timings.map((t) => t.ms), performance.now() - wall), timings };
}
