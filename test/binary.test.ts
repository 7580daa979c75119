import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { textIn } from "./pdf/appearance";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { makePkcs12, poppler } from "./pdf/certs";
import { freePort, waitFor } from "./serve-process";
import { ALLOCATOR_SETTINGS } from "../cli/allocator";

const root = resolve(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "renderd-binary-"));
const binary = join(work, "renderd");
beforeAll(() => {
  const build = Bun.spawnSync([process.execPath, "run", "scripts/build.ts", "cli/main.ts", binary], { cwd: root, stderr: "pipe", stdout: "pipe" });
  expect(build.exitCode, build.stderr.toString()).toBe(0);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("the compiled binary serves /health, /health/live and its API description, and stops on SIGTERM", async () => {
  const [port, internalPort] = [await freePort(), await freePort()];
  const proc = Bun.spawn([binary, "serve", "--port", String(port), "--internal-port", String(internalPort)], {
    // Started outside the checkout: the binary must need nothing from it.
    cwd: work,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DATA_DIR: join(work, "data"), LOG_LEVEL: "info", RENDERD_ADMIN_PASSWORD: "binary-test-pw" },
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    const health = await waitFor(`http://127.0.0.1:${port}/health`, 15_000);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    // Started again under the allocator's settings (cli/allocator.ts) with the binary's own arguments, not Bun's.
    expect(readFileSync(`/proc/${proc.pid}/cmdline`, "utf8").split("\0").slice(0, 3)).toEqual([binary, "serve", "--port"]);
    expect(readFileSync(`/proc/${proc.pid}/environ`, "utf8").split("\0")).toContain(`MIMALLOC_PURGE_HOLES_MIN_INTERVAL=${ALLOCATOR_SETTINGS.MIMALLOC_PURGE_HOLES_MIN_INTERVAL}`);
    const live = await fetch(`http://127.0.0.1:${internalPort}/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: "ok" });
    const signIn = await fetch(`http://127.0.0.1:${port}/v1/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "admin@renderd.local", password: "binary-test-pw" }),
    });
    expect(signIn.status).toBe(200);
    // The API description and the reference's files are built into the binary (no network, no checkout).
    const description = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`);
    expect(description.status).toBe(200);
    expect((await description.json()).info.version).toBe("0.0.0");
    const bundle = await fetch(`http://127.0.0.1:${port}/v1/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
  } finally {
    proc.kill("SIGTERM");
  }
  expect(await proc.exited).toBe(0);
  const out = await new Response(proc.stdout).text();
  expect(out).toContain('"msg":"renderd stopped"');
  expect(out).not.toContain("binary-test-pw");
});

test("the compiled binary signs a render with an uploaded PKCS#12, visible box included (@libpdf/core is embedded)", async () => {
  const [port, internalPort] = [await freePort(), await freePort()];
  const box = { page: 1, x: 320, y: 700, width: 240, height: 64 };
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", DATA_DIR: join(work, "data-sign"), LOG_LEVEL: "warn", RENDERD_ADMIN_PASSWORD: "binary-test-pw" };
  const proc = Bun.spawn([binary, "serve", "--port", String(port), "--internal-port", String(internalPort)], { cwd: work, env, stdout: "pipe", stderr: "pipe" });
  try {
    await waitFor(`http://127.0.0.1:${port}/health`, 15_000);
    const created = Bun.spawnSync([binary, "keys", "create", "--workspace", "default", "--name", "signer", "--scope", "certificate:manage,render:create", "--json"], { cwd: work, env });
    expect(created.exitCode, created.stderr.toString()).toBe(0);
    const headers = { "x-api-key": JSON.parse(created.stdout.toString()).secret, "content-type": "application/json" };
    const pkcs12 = Buffer.from(makePkcs12({ commonName: "Binary Signer" })).toString("base64");
    const certificate = await fetch(`http://127.0.0.1:${port}/v1/certificates`, { method: "POST", headers, body: JSON.stringify({ name: "Signing", pkcs12, password: "secret" }) });
    expect(certificate.status).toBe(201);
    const { id } = await certificate.json();
    const render = await fetch(`http://127.0.0.1:${port}/v1/renders?wait=30`, { method: "POST", headers, body: JSON.stringify({ html: "<p>Signed</p>", signature: { certificateId: id, visible: box } }) });
    const body = await render.json();
    expect(body.status).toBe("succeeded");
    const result = new URL(body.result.downloadUrl);
    const pdf = new Uint8Array(await (await fetch(`http://127.0.0.1:${port}${result.pathname}${result.search}`)).arrayBuffer());
    const check = poppler("pdfsig", pdf);
    expect(check.out).toContain("Signature is Valid.");
    expect(check.out).toContain("Binary Signer");
    expect(textIn(pdf, box)).toContain("Digitally signed by Binary Signer");
  } finally {
    proc.kill("SIGTERM");
  }
  expect(await proc.exited).toBe(0);
});

test("the compiled binary draws page images and runs PDF operations (pdf-lib, qpdf, Ghostscript, cwebp; issue 30)", async () => {
  const [port, internalPort] = [await freePort(), await freePort()];
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", DATA_DIR: join(work, "data-pages"), LOG_LEVEL: "warn", RENDERD_ADMIN_PASSWORD: "binary-test-pw" };
  const proc = Bun.spawn([binary, "serve", "--port", String(port), "--internal-port", String(internalPort)], { cwd: work, env, stdout: "pipe", stderr: "pipe" });
  const base = `http://127.0.0.1:${port}`;
  const local = (address: string) => base + new URL(address).pathname + new URL(address).search;
  try {
    await waitFor(`${base}/health`, 15_000);
    const created = Bun.spawnSync([binary, "keys", "create", "--workspace", "default", "--name", "pages", "--scope", "render:create,render:read", "--json"], { cwd: work, env });
    const headers = { "x-api-key": JSON.parse(created.stdout.toString()).secret, "content-type": "application/json" };
    const post = async (path: string, body: unknown) => (await fetch(base + path, { method: "POST", headers, body: JSON.stringify(body) })).json();
    const render = await post("/v1/renders?wait=30", { html: "<h1>Page one</h1><h1 style='break-before:page'>Page two</h1>", output: { format: "webp" } });
    expect(render.result.images).toHaveLength(2);
    const webp = new Uint8Array(await (await fetch(local(render.result.images[0].url))).arrayBuffer());
    expect(new TextDecoder().decode(webp.subarray(8, 12))).toBe("WEBP");
    const png = await fetch(`${base}/v1/renders/${render.id}/pages/2?width=100`, { headers });
    expect(png.headers.get("content-type")).toBe("image/png");
    const steps = [
      { operation: "merge", inputs: [{ renderId: render.id }, { renderId: render.id }] },
      { operation: "stamp", inputs: [{ renderId: render.id }], text: "PAID" },
      { operation: "flatten", inputs: [{ renderId: render.id }] },
      { operation: "compress", inputs: [{ renderId: render.id }] },
      { operation: "encrypt", inputs: [{ renderId: render.id }], password: { owner: "own" } },
    ];
    for (const step of steps) {
      const op = await post("/v1/pdf-operations?wait=30", step);
      expect([step.operation, op.status]).toEqual([step.operation, "succeeded"]);
      const pdf = new Uint8Array(await (await fetch(local(op.result.downloadUrl))).arrayBuffer());
      expect(poppler("pdfinfo", pdf).out).toMatch(new RegExp(`Pages:\\s+${step.operation === "merge" ? 4 : 2}`));
    }
  } finally {
    proc.kill("SIGTERM");
  }
  expect(await proc.exited).toBe(0);
});

test("the compiled binary converts a PDF into a template (pdf.js and its worker are embedded)", async () => {
  const [port, internalPort] = [await freePort(), await freePort()];
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", DATA_DIR: join(work, "data-convert"), LOG_LEVEL: "warn", RENDERD_ADMIN_PASSWORD: "binary-test-pw" };
  const proc = Bun.spawn([binary, "serve", "--port", String(port), "--internal-port", String(internalPort)], { cwd: work, env, stdout: "pipe", stderr: "pipe" });
  try {
    await waitFor(`http://127.0.0.1:${port}/health`, 15_000);
    const created = Bun.spawnSync([binary, "keys", "create", "--workspace", "default", "--name", "converter", "--scope", "asset:manage,template:write,template:read", "--json"], { cwd: work, env });
    expect(created.exitCode, created.stderr.toString()).toBe(0);
    const headers = { "x-api-key": JSON.parse(created.stdout.toString()).secret, "content-type": "application/json" };
    const doc = await PDFDocument.create();
    doc.addPage([595, 842]).drawText("Invoice INV-0042 due 2026-04-09", { x: 50, y: 780, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
    const pdf = new Uint8Array(await doc.save());
    const sha256 = new Bun.CryptoHasher("sha256").update(pdf).digest("hex");
    const registered = await fetch(`http://127.0.0.1:${port}/v1/assets`, { method: "POST", headers, body: JSON.stringify({ kind: "pdf", filename: "invoice.pdf", mediaType: "application/pdf", size: pdf.byteLength, sha256 }) });
    const asset = await registered.json();
    const upload = new URL(asset.uploadUrl);
    expect((await fetch(`http://127.0.0.1:${port}${upload.pathname}${upload.search}`, { method: "PUT", headers: asset.uploadHeaders, body: pdf })).status).toBe(200);
    const conversion = await (await fetch(`http://127.0.0.1:${port}/v1/template-conversions`, { method: "POST", headers, body: JSON.stringify({ assetId: asset.id }) })).json();
    let done = conversion;
    for (let i = 0; i < 100 && (done.status === "queued" || done.status === "processing"); i++) {
      await Bun.sleep(100);
      done = await (await fetch(`http://127.0.0.1:${port}/v1/template-conversions/${conversion.id}`, { headers })).json();
    }
    expect(done.status, JSON.stringify(done)).toBe("succeeded");
    expect(done.sampleData).toEqual({ invoice: "INV-0042", due: "2026-04-09" });
  } finally {
    proc.kill("SIGTERM");
  }
  expect(await proc.exited).toBe(0);
  // pdf.js warns about drawing packages it cannot load; renderd's output keeps to its own lines.
  const output = (await new Response(proc.stdout).text()) + (await new Response(proc.stderr).text());
  expect(output).not.toContain("Warning:");
});

test("the compiled binary renders computed values and Tailwind classes, and offers the starters (jsonata and UnoCSS are embedded)", async () => {
  const [port, internalPort] = [await freePort(), await freePort()];
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", DATA_DIR: join(work, "data-authoring"), LOG_LEVEL: "warn", RENDERD_ADMIN_PASSWORD: "binary-test-pw" };
  const proc = Bun.spawn([binary, "serve", "--port", String(port), "--internal-port", String(internalPort)], { cwd: work, env, stdout: "pipe", stderr: "pipe" });
  try {
    await waitFor(`http://127.0.0.1:${port}/health`, 15_000);
    const created = Bun.spawnSync([binary, "keys", "create", "--workspace", "default", "--name", "author", "--scope", "template:read,template:write,render:create,render:read", "--json"], { cwd: work, env });
    expect(created.exitCode, created.stderr.toString()).toBe(0);
    const headers = { "x-api-key": JSON.parse(created.stdout.toString()).secret, "content-type": "application/json" };
    const api = (path: string, body?: unknown) => fetch(`http://127.0.0.1:${port}${path}`, { method: body === undefined ? "GET" : "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) });
    expect((await (await api("/v1/template-starters")).json()).items).toHaveLength(5);
    const content = { type: "text", text: { expression: "$sum(lines.(quantity * price))", format: { type: "currency", currency: "EUR" } }, tw: "text-2xl font-bold" };
    const template = await (await api("/v1/templates", { name: "t", content, sampleData: { lines: [{ quantity: 2, price: 3.5 }] } })).json();
    const html = await (await api(`/v1/templates/${template.id}/preview?format=html`, {})).text();
    expect(html).toContain('<div class="text-2xl font-bold">€7.00</div>');
    expect(html).toContain(".text-2xl{font-size:1.5rem;line-height:2rem;}");
    const render = await (await api("/v1/renders?wait=30", { document: { type: "text", text: "x", tw: "text-blue-700 nope" } })).json();
    expect(render.status).toBe("succeeded");
    expect(render.warnings).toEqual([{ reason: "unknown_class", className: "nope", path: "/document/tw" }]);
  } finally {
    proc.kill("SIGTERM");
  }
  expect(await proc.exited).toBe(0);
});

test("the compiled binary backs up, verifies and restores (tar-stream is embedded) and its doctor starts Chromium", () => {
  const binary = join(work, "renderd");
  const run = (...args: string[]) => Bun.spawnSync([binary, ...args], { env: { PATH: process.env.PATH ?? "" }, stderr: "pipe", stdout: "pipe" });
  const data = join(work, "backed-up");
  expect(run("migrate", "--data-dir", data).exitCode).toBe(0);
  const archive = join(work, "backup.tar.gz");
  const made = run("backup", "create", "--out", archive, "--data-dir", data);
  expect(made.exitCode, made.stderr.toString()).toBe(0);
  expect(run("backup", "verify", archive).exitCode).toBe(0);
  expect(run("backup", "restore", archive, "--data-dir", join(work, "restored")).exitCode).toBe(0);
  const doctor = run("doctor", "--data-dir", join(work, "restored"), "--port", "0", "--internal-port", "0");
  expect(doctor.stdout.toString()).toMatch(/^ok\s+chromium\s+Chromium \d+/m);
  expect(doctor.stdout.toString()).toMatch(/^ok\s+store\s+quick_check ok$/m);
});

test("bad configuration exits non-zero with one line naming the variable", () => {
  const run = Bun.spawnSync([process.execPath, "cli/main.ts", "serve"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", DATA_DIR: join(work, "bad"), RENDER_TIMEOUT_MS: "500" },
    stderr: "pipe",
    stdout: "pipe",
  });
  expect(run.exitCode).toBe(2);
  const lines = run.stderr.toString().trim().split("\n");
  expect(lines).toEqual(["renderd: RENDER_TIMEOUT_MS=500 is not allowed: use a whole number from 1000 to 3600000."]);
});

test("DATABASE_URL without REDIS_URL, S3_BUCKET and SECRET_KEY: serve refuses to start with exit code 2 and one line naming what is missing, not the URL", () => {
  const run = Bun.spawnSync([process.execPath, "cli/main.ts", "serve"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", DATA_DIR: join(work, "bad"), DATABASE_URL: "postgres://renderd:db-password@127.0.0.1/renderd" },
    stderr: "pipe",
    stdout: "pipe",
  });
  expect(run.exitCode).toBe(2);
  expect(run.stderr.toString().trim().split("\n")).toEqual([
    "renderd: DATABASE_URL (a store shared by several processes) needs REDIS_URL, S3_BUCKET, SECRET_KEY: rate limits are shared through Redis, files through a bucket, and every process must sign and seal with the same SECRET_KEY (docs/scale-out.md).",
  ]);
});

test("--version names the package version and the commit the binary was built from; a source run says dev", async () => {
  const { version } = (await Bun.file(join(root, "package.json")).json()) as { version: string };
  const head = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: root, stdout: "pipe" }).stdout.toString().trim();
  const built = Bun.spawnSync([binary, "--version"], { cwd: work, stdout: "pipe" });
  expect(built.stdout.toString()).toMatch(new RegExp(`^${version.replaceAll(".", "\\.")} \\(commit ${head}(-dirty)?\\)\n$`));
  const source = Bun.spawnSync([process.execPath, "cli/main.ts", "--version"], { cwd: root, stdout: "pipe" });
  expect(source.stdout.toString()).toBe(`${version} (dev)\n`);
});
