/**
 * A full disk is an outage renderd survives and reports (issue 26; docs/operations.md "When the disk fills"). The
 * compiled binary serves from a DATA_DIR on a 64 MiB tmpfs, which the test fills while renders print and uploads stream:
 * first to under STORAGE_MIN_FREE_BYTES (new renders, uploads and templates answer 503, /health names the database,
 * /internal/state, /metrics and the TUI say why, reads and what was accepted go on), then to the last byte (the process
 * lives on, nothing acknowledged fails), then freed — and the same process takes work again by itself and finishes every
 * render it acknowledged. Needs root for mount(8), as CI has.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join, resolve } from "node:path";
import { render } from "ink-testing-library";
import { loadSnapshot } from "../../cli/tui/data";
import { fetchLive } from "../../cli/tui/live";
import { Overview } from "../../cli/tui/screens/overview";
import { ColourProvider } from "../../cli/tui/theme";
import { sha256Hex } from "../../src/lib/hash";
import { systemClock } from "../../src/lib/clock";
import { freeBytesOf } from "../../src/store/space";
import { startServe, type ServeProcess } from "../serve-process";
import { until } from "../wait";

const ROOT = resolve(import.meta.dir, "../..");
const MiB = 1024 * 1024;
const MIN_FREE = 16 * MiB;
const ALLOWANCE = 10; // renders a workspace may have in progress at once (the default allowance)
const root = process.getuid?.() === 0;
const work = mkdtempSync(join(tmpdir(), "renderd-disk-full-"));
const mount = join(work, "tmpfs");
const dataDir = join(mount, "data");
const filler = join(mount, "filler");

let serve: ServeProcess | undefined;
let key = "";

beforeAll(async () => {
  if (!root) return;
  if (!existsSync(join(ROOT, "dist/renderd"))) {
    const build = Bun.spawnSync([process.execPath, "run", "scripts/build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect(build.exitCode, build.stderr.toString()).toBe(0);
  }
  mkdirSync(mount);
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${64 * MiB}`, "tmpfs", mount], { stderr: "pipe" });
  expect(mounted.exitCode, `mount -t tmpfs failed: ${mounted.stderr}`).toBe(0);
  serve = await startServe([join(ROOT, "dist/renderd")], { LOG_LEVEL: "info", RENDER_WORKERS: "1", STORAGE_MIN_FREE_BYTES: String(MIN_FREE) }, dataDir);
  key = await serve.makeKey(["render:create", "render:read", "asset:manage", "template:write"]);
});

afterAll(async () => {
  if (serve?.proc.exitCode === null) serve.proc.kill("SIGKILL");
  await serve?.proc.exited;
  if (root) Bun.spawnSync(["umount", "-l", mount]);
  rmSync(work, { recursive: true, force: true });
});

const free = () => freeBytesOf(dataDir);

/** fill writes zeros into the filler until `leave` bytes are free, or until the disk refuses more (leave = 0). */
function fill(leave: number): void {
  try {
    appendFileSync(filler, Buffer.alloc(leave === 0 ? free() + MiB : Math.max(0, free() - leave)));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC" || leave !== 0) throw e;
  }
}

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${serve!.url}${path}`, {
    method,
    headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text.startsWith("{") ? JSON.parse(text) : text };
}

// Printing this takes the one page a second or more: the renders queued behind it are still queued when the disk fills.
const LONG = `<style>p { break-after: page; }</style>${"<p>a page of a long document</p>".repeat(300)}`;

/** queueRenders asks for `n` renders, the first a long one, and answers their ids, each acknowledged 202. */
async function queueRenders(n: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call("POST", "/v1/renders", { html: i === 0 ? LONG : `<h1>${label} ${i}</h1>` });
    expect([res.status, res.body.status]).toEqual([202, "queued"]);
    ids.push(res.body.id);
  }
  return ids;
}

async function statuses(ids: string[]): Promise<Record<string, number>> {
  const store = await serve!.openStore();
  try {
    const counts: Record<string, number> = {};
    for (const id of ids) {
      const status = (await store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id }))?.status ?? "missing";
      counts[status] = (counts[status] ?? 0) + 1;
    }
    return counts;
  } finally {
    await store.close();
  }
}

/** An upload held after its first MiB until `release` is called: the disk is filled while it streams. Sent on a socket
 * of its own, closed once answered: an upload refused before its body is all sent is cut off, as a client would. */
async function startUpload(label: string) {
  const bytes = new Uint8Array(3 * MiB);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  bytes.set(new TextEncoder().encode(label), 8);
  const registered = await call("POST", "/v1/assets", { kind: "image", filename: `${label}.png`, mediaType: "image/png", size: bytes.length, sha256: sha256Hex(bytes) });
  expect(registered.status).toBe(201);
  const address = new URL(registered.body.uploadUrl);
  const target = `${address.pathname}${address.search}`;
  const socket = connect(Number(new URL(serve!.url).port), "127.0.0.1");
  let received = "";
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
      const end = received.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(received.slice(0, end))?.[1]);
      if (end < 0 || received.length < end + 4 + length) return;
      socket.destroy();
      resolve({ status: Number(received.split(" ")[1]), body: JSON.parse(received.slice(end + 4, end + 4 + length)) });
    });
    socket.on("error", reject);
  });
  socket.write(`PUT ${target} HTTP/1.1\r\nHost: renderd.test\r\nContent-Length: ${bytes.length}\r\n\r\n`);
  socket.write(bytes.subarray(0, MiB));
  // Streaming: its temporary file is there once the first MiB is written.
  await until(() => readdirSync(join(dataDir, "tmp/uploads")).some((name) => name.startsWith(registered.body.id)));
  return {
    id: registered.body.id as string,
    sha256: sha256Hex(bytes),
    release: () => socket.write(bytes.subarray(MiB)),
    answer,
    retry: () => fetch(`${serve!.url}${target}`, { method: "PUT", body: bytes }),
  };
}

const refused = (res: { status: number; body: any }) => [res.status, res.body.error?.code, res.body.error?.retryable];
const health = async () => (await fetch(`${serve!.url}/health`)).status;
const state = async () => (await fetch(`${serve!.internalUrl}/internal/state`)).json() as Promise<any>;

test.skipIf(!root)("a full DATA_DIR is refused, reported and survived, and the same process recovers by itself with every acknowledged render finished", async () => {
  const { pid, startedAt } = await state();
  const acknowledged: string[] = [];

  // 1. Under STORAGE_MIN_FREE_BYTES while renders are queued and an upload streams: both finish; new work is refused.
  acknowledged.push(...(await queueRenders(ALLOWANCE, "before the threshold")));
  const uploadA = await startUpload("a");
  fill(8 * MiB);
  uploadA.release();
  for (const res of [
    await call("POST", "/v1/renders", { html: "<p>refused</p>" }),
    await call("POST", "/v1/assets", { kind: "image", filename: "b.png", mediaType: "image/png", size: 10, sha256: "0".repeat(64) }),
    await call("POST", "/v1/templates", { name: "refused", content: { type: "text", text: "x" } }),
  ]) {
    expect(refused(res)).toEqual([503, "INTERNAL", true]);
    expect(res.body.error.message).toMatch(/^DATA_DIR has \d+ bytes free, under STORAGE_MIN_FREE_BYTES \(16777216\): renderd takes no new renders, uploads or templates/);
    expect(res.body.error.message).not.toContain(mount);
    expect(res.headers.get("retry-after")).toBe("10");
  }
  expect(await (await fetch(`${serve!.url}/health`)).json()).toEqual({ status: "unavailable", unavailable: ["database"] });
  const low = (await state()).storage;
  expect(low).toMatchObject({ dataDir, minFreeBytes: MIN_FREE, refusing: "low", lastError: null });
  expect(low.freeBytes).toBeLessThan(MIN_FREE);
  const gauge = /^renderd_data_dir_free_bytes (\d+)$/m.exec(await (await fetch(`${serve!.internalUrl}/metrics`)).text());
  expect(Math.abs(Number(gauge?.[1]) - free())).toBeLessThan(4 * MiB);
  const store = await serve!.openStore();
  try {
    const ui = render(
      <ColourProvider value={false}>
        <Overview snapshot={await loadSnapshot(store, systemClock, await fetchLive(serve!.internalUrl), {})} />
      </ColourProvider>,
    );
    expect(ui.lastFrame()).toMatch(/DATA_DIR: \d+\.\d MiB free, under 16\.0 MiB: new renders and uploads refused/);
    ui.unmount();
  } finally {
    await store.close();
  }
  expect((await uploadA.answer).status).toBe(200);
  await until(async () => (await statuses(acknowledged)).succeeded === ALLOWANCE, 30_000);
  expect((await call("GET", `/v1/renders/${acknowledged[0]}`)).status).toBe(200);
  expect((await call("GET", "/v1/renders?limit=5")).status).toBe(200);
  const detail = await call("GET", `/v1/assets/${uploadA.id}`);
  expect(detail.status).toBe(200);
  const download = new URL(detail.body.downloadUrl);
  const stored = await fetch(`${serve!.url}${download.pathname}${download.search}`);
  expect(sha256Hex(new Uint8Array(await stored.arrayBuffer()))).toBe(uploadA.sha256);

  // Freed: taken again by itself.
  rmSync(filler);
  await until(() => freeBytesOf(dataDir) > MIN_FREE);
  for (let tries = 0; (await health()) !== 200; tries++) {
    expect(tries).toBeLessThan(100);
    await Bun.sleep(50);
  }

  // 2. To the last byte while renders print and an upload streams: the upload answers 503 and keeps nothing, the
  //    renders wait — none fails — and the process serves reads throughout.
  const uploadB = await startUpload("b");
  const second = await queueRenders(ALLOWANCE, "at the last byte");
  acknowledged.push(...second);
  fill(0);
  uploadB.release();
  const broken = await uploadB.answer;
  expect(refused(broken)).toEqual([503, "INTERNAL", true]);
  expect(broken.body.error.message).toMatch(/^Writing to DATA_DIR failed for want of space \(\d+ bytes free\)/);
  // Only the upload's own: a render ending now may be writing its spooled PDF to the file store beside it
  // (`output-spool.….part`, one CI run saw one).
  expect(readdirSync(join(dataDir, "tmp/uploads")).filter((name) => name.startsWith(uploadB.id))).toEqual([]);
  // The broken upload's temporary file is gone, and the room it took with it: taken too.
  fill(0);
  await Bun.sleep(3_000);
  expect(serve!.proc.exitCode).toBeNull();
  expect((await statuses(second)).failed).toBeUndefined();
  expect((await statuses(second)).missing).toBeUndefined();
  expect(await health()).toBe(503);
  expect((await state()).storage.refusing).not.toBeNull();
  expect(refused(await call("POST", "/v1/renders", { html: "<p>refused</p>" }))).toEqual([503, "INTERNAL", true]);
  expect((await call("GET", `/v1/renders/${second[0]}`)).status).toBe(200);

  // 3. Freed again: the same process, no restart, finishes every render it acknowledged and takes new work.
  rmSync(filler);
  await until(async () => (await statuses(acknowledged)).succeeded === acknowledged.length, 60_000);
  for (let tries = 0; (await health()) !== 200; tries++) {
    expect(tries).toBeLessThan(200);
    await Bun.sleep(50);
  }
  expect(await state()).toMatchObject({ pid, startedAt, storage: { refusing: null } });
  expect((await uploadB.retry()).status).toBe(200);
  const after = await call("POST", "/v1/renders?wait=30", { html: "<p>after the outage</p>" });
  expect([after.status, after.body.status]).toEqual([200, "succeeded"]);

  // Each outage is logged once at its start, not once per failed write; nothing went unhandled.
  serve!.proc.kill("SIGTERM");
  expect(await serve!.proc.exited).toBe(0);
  const log = (await new Response(serve!.proc.stdout).text())
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
  const count = (msg: string) => log.filter((l) => l.msg === msg).length;
  expect(count("DATA_DIR cannot take growing writes: new renders, uploads and templates answer 503 until it can; reads go on")).toBe(2);
  expect(count("claiming or ending renders failed; retrying with back-off until it works")).toBe(1);
  expect(count("claiming or ending renders works again")).toBe(1);
  expect(log.filter((l) => l.msg === "unhandled error" || l.level >= 60)).toEqual([]);

  // Stopped cleanly, the store has no write-ahead log: a start with no byte left cannot open it, and says so.
  fill(0);
  const started = Bun.spawnSync([join(ROOT, "dist/renderd"), "serve", "--port", "0", "--internal-port", "0"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DATA_DIR: dataDir, LOG_LEVEL: "silent" }, stderr: "pipe" });
  expect(started.exitCode).toBe(1);
  expect(started.stderr.toString()).toMatch(/^renderd: the store under DATA_DIR=.* cannot be opened \(.+\) with \d+ bytes free: free space there and start again/);
  rmSync(filler);
}, 180_000);
