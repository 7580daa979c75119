/** readme: README.md's quick start, read from the README itself and run as written against dist/renderd — the serve
 * line, each curl line with real curl, and the CLI line — so the test fails when the README and the code drift apart. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { contentKey } from "../src/store/files";
import { freePort, readUntil } from "./serve-process";
import { until } from "./wait";

const root = resolve(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "renderd-readme-"));
const dataDir = join(work, "data");

// dist/renderd is what install.sh builds (and CI runs); built here only when it is missing.
beforeAll(() => {
  if (existsSync(join(root, "dist/renderd"))) return;
  const build = Bun.spawnSync([process.execPath, "run", "scripts/build.ts"], { cwd: root, stdout: "pipe", stderr: "pipe" });
  expect(build.exitCode, build.stderr.toString()).toBe(0);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** quickStart answers the README's "Quick start" section: its shell blocks as written, and its prose. */
function quickStart(): { blocks: string[]; prose: string } {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = /^## Quick start\n([\s\S]*?)^## /m.exec(readme)?.[1];
  if (!section) throw new Error("README.md has no '## Quick start' section");
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  return { blocks, prose: section.replace(/^```sh\n[\s\S]*?^```/gm, "") };
}

test("the README's quick start works as written on other ports: serve, sign in, make a key, read the limits, render a PDF, download it and find its file, the CLI key", async () => {
  const { blocks, prose } = quickStart();
  expect(blocks).toHaveLength(2);
  const serve = /(dist\/renderd serve[^#&\n]*)/.exec(blocks[0]!)?.[1]?.trim();
  expect(serve).toBe("dist/renderd serve");
  const script = blocks[1]!;
  // Nothing in the commands names a port: they follow PORT and INTERNAL_PORT.
  expect(script).not.toMatch(/:(8080|8081)\b(?!\})/);

  const [port, internalPort] = [await freePort(), await freePort()];
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", PORT: String(port), INTERNAL_PORT: String(internalPort) };
  const proc = Bun.spawn(["bash", "-c", serve!], {
    cwd: root,
    // As on a fresh machine: no RENDERD_ADMIN_PASSWORD, so the first start prints a generated one.
    env: { ...env, DATA_DIR: dataDir, HOST: "127.0.0.1", LOG_LEVEL: "info" },
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    const reader = proc.stdout.getReader();
    await readUntil(reader, "renderd listening").catch(async (e) => {
      throw new Error(`${(e as Error).message}${await new Response(proc.stderr).text()}`);
    });
    // Keep the log pipe drained while the commands run.
    void (async () => {
      while (!(await reader.read()).done);
    })();
    // The README says where the password is: on standard error, alone on its line.
    const notice = await readUntil(proc.stderr.getReader(), "--password-stdin`\n");
    const password = /shown once \(change it\):\n\n {4}(\S+)\n/.exec(notice)?.[1];
    expect(password).toBeTruthy();

    expect(script).toContain("PASSWORD='…'");
    const filled = script.replace("PASSWORD='…'", `PASSWORD='${password}'`);
    if (filled.includes("…")) throw new Error(`a placeholder of the README is not filled in:\n${filled}`);
    const run = Bun.spawnSync(["bash", "-c", `set -euo pipefail\n${filled}`], { cwd: work, env, stdout: "pipe", stderr: "pipe" });
    const out = run.stdout.toString();
    expect({ exit: run.exitCode, err: run.stderr.toString() }).toEqual({ exit: 0, err: "" });
    expect(out).toContain('{"status":"ok"}');
    expect(out).not.toContain('"error"');
    const rendered = JSON.parse(readFileSync(join(work, "render.json"), "utf8"));
    expect(rendered.status).toBe("succeeded");
    const pdf = readFileSync(join(work, "hello.pdf"));
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    expect(pdf.length).toBe(rendered.result.bytes);
    // The binary writes the PDF to its file from its batch writer's thread (store/files-disk-batch.ts), after the batch's
    // wait: a worker started from its text, which a compiled binary runs differently from the tests.
    await until(() => existsSync(join(dataDir, contentKey("outputs", createHash("sha256").update(pdf).digest("hex")))), 10_000);

    const cli = /`(dist\/renderd keys create [^`]+)`/.exec(prose)?.[1];
    expect(cli).toBeTruthy();
    const made = Bun.spawnSync(["bash", "-c", cli!], { cwd: root, env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir }, stdout: "pipe", stderr: "pipe" });
    expect({ exit: made.exitCode, err: made.stderr.toString() }).toEqual({ exit: 0, err: "" });
    const secret = /rd_[0-9A-Za-z]{43}/.exec(made.stdout.toString())?.[0];
    const created = await fetch(`http://127.0.0.1:${port}/v1/renders`, {
      method: "POST",
      headers: { "x-api-key": secret!, "content-type": "application/json" },
      body: JSON.stringify({ html: "<p>from the CLI's key</p>" }),
    });
    expect(created.status).toBe(202);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
});
