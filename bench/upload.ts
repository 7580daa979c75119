/** bench/upload: the server's resident memory while it takes a 50 MB asset upload. Spawns `bun cli/main.ts serve`
 * on a temporary DATA_DIR, registers a 50 MB PDF and PUTs it (streamed from disk), polling the server's VmRSS every
 * 20 ms. The upload must stream to disk: target growth under 20 MB.
 *
 *   bun bench/upload.ts [megabytes=50]
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const MB = 1_000_000;
const size = Math.round(Number(process.argv[2] ?? 50) * MB);
const TARGET_MB = 20;
const PASSWORD = "bench-password-1";
const EMAIL = "bench@example.test";

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

/** writeRandomFile streams `bytes` random bytes to `path` in 1 MiB pieces, hashing as it goes. */
async function writeRandomFile(path: string, bytes: number): Promise<string> {
  const hash = createHash("sha256");
  const fh = await open(path, "w");
  // A PDF header so the magic-byte check passes; the rest is random.
  const header = new TextEncoder().encode("%PDF-1.7\n");
  hash.update(header);
  await fh.write(header);
  let left = bytes - header.byteLength;
  while (left > 0) {
    const n = Math.min(left, 1 << 20);
    const chunk = new Uint8Array(n);
    for (let i = 0; i < n; i += 65536) crypto.getRandomValues(chunk.subarray(i, Math.min(n, i + 65536)));
    hash.update(chunk);
    await fh.write(chunk);
    left -= n;
  }
  await fh.close();
  return hash.digest("hex");
}

async function main() {
  const root = resolve(import.meta.dir, "..");
  const work = mkdtempSync(join(tmpdir(), "renderd-bench-upload-"));
  const dataDir = join(work, "data");
  const file = join(work, "upload.pdf");
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = Bun.spawn([process.execPath, "cli/main.ts", "serve"], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      INTERNAL_PORT: String(freePort()),
      HOST: "127.0.0.1",
      PUBLIC_URL: base,
      LOG_LEVEL: "warn",
      RENDERD_ADMIN_EMAIL: EMAIL,
      RENDERD_ADMIN_PASSWORD: PASSWORD,
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  try {
    const sha256 = await writeRandomFile(file, size);
    for (let i = 0; ; i++) {
      if (i > 200) throw new Error("the server did not start");
      try {
        if ((await fetch(`${base}/health`)).ok) break;
      } catch {
        // not listening yet
      }
      await Bun.sleep(50);
    }
    const rssStarted = rssMb(server.pid);
    const signIn = await fetch(`${base}/v1/auth/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }) });
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    const headers = { cookie, origin: base, "content-type": "application/json" };
    const register = async (body: object) => {
      const res = await fetch(`${base}/v1/assets`, { method: "POST", headers, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string; uploadUrl: string; uploadHeaders: Record<string, string> };
    };

    // Warm-up: one small upload, so the figures below are about the body, not about code first run.
    const small = new TextEncoder().encode("%PDF-1.7\nwarm-up\n");
    const warm = await register({ kind: "pdf", filename: "warm.pdf", mediaType: "application/pdf", size: small.byteLength, sha256: createHash("sha256").update(small).digest("hex") });
    const warmed = await fetch(warm.uploadUrl, { method: "PUT", body: small });
    if (warmed.status !== 200) throw new Error(`warm-up upload failed: ${warmed.status}`);

    const reg = await register({ kind: "pdf", filename: "big.pdf", mediaType: "application/pdf", size, sha256 });
    await Bun.sleep(200);
    const before = rssMb(server.pid);
    let peak = before;
    const poll = setInterval(() => {
      peak = Math.max(peak, rssMb(server.pid));
    }, 20);
    const started = performance.now();
    const res = await fetch(reg.uploadUrl, { method: "PUT", body: Bun.file(file), headers: reg.uploadHeaders });
    const answer = await res.text();
    const seconds = (performance.now() - started) / 1000;
    peak = Math.max(peak, rssMb(server.pid));
    await Bun.sleep(500);
    clearInterval(poll);
    const after = rssMb(server.pid);
    if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${answer}`);

    const growth = peak - before;
    const mb = (n: number) => n.toFixed(1);
    console.log(
      `upload ${mb(size / MB)} MB: ${seconds.toFixed(2)} s (${mb(size / MB / seconds)} MB/s), RSS at start ${mb(rssStarted)} MB, before ${mb(before)} MB, ` +
        `peak ${mb(peak)} MB, after ${mb(after)} MB, growth ${mb(growth)} MB (target < ${TARGET_MB} MB)`,
    );
    if (growth >= TARGET_MB) process.exitCode = 1;
  } finally {
    server.kill("SIGTERM");
    await server.exited;
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
