/** readme: README.md's quick start, read from the README itself and run as written against dist/renderd — the serve
 * line, each curl line with real curl, and the CLI line — so the test fails when the README and the code drift apart. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort, readUntil } from "./serve-process";

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

/** quickStart answers the README's "Quick start" section: its shell blocks' commands (continuations joined) and its prose. */
function quickStart(): { blocks: string[][]; prose: string } {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = /^## Quick start\n([\s\S]*?)^## /m.exec(readme)?.[1];
  if (!section) throw new Error("README.md has no '## Quick start' section");
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) =>
    m[1]!
      .replace(/\\\n\s*/g, "")
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.trim().startsWith("#")),
  );
  return { blocks, prose: section.replace(/^```sh\n[\s\S]*?^```/gm, "") };
}

test("the README's quick start works as written: serve, sign in, make a key, read the limits, render a PDF, the CLI key", async () => {
  const { blocks, prose } = quickStart();
  expect(blocks).toHaveLength(2);
  const serveLine = blocks[0]!.find((l) => l.includes("dist/renderd serve"));
  const serve = /(dist\/renderd serve[^#&]*)/.exec(serveLine ?? "")?.[1]?.trim();
  expect(serve).toBe("dist/renderd serve");
  const curls = blocks[1]!;
  expect(curls.length).toBeGreaterThanOrEqual(5);
  expect(curls.every((l) => l.startsWith("curl "))).toBe(true);

  const [port, internalPort] = [await freePort(), await freePort()];
  const proc = Bun.spawn(["bash", "-c", serve!], {
    cwd: root,
    // As on a fresh machine: no RENDERD_ADMIN_PASSWORD, so the first start prints a generated one.
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DATA_DIR: dataDir, PORT: String(port), INTERNAL_PORT: String(internalPort), HOST: "127.0.0.1", LOG_LEVEL: "info" },
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    const reader = proc.stdout.getReader();
    const out = await readUntil(reader, "renderd listening").catch(async (e) => {
      throw new Error(`${(e as Error).message}${await new Response(proc.stderr).text()}`);
    });
    // Keep the log pipe drained while the commands run.
    void (async () => {
      while (!(await reader.read()).done);
    })();
    const password = /generated password \(shown once, change it\): (\S+)/.exec(out)?.[1];
    expect(password).toBeTruthy();

    let key = "";
    const answers: any[] = [];
    for (const line of curls) {
      const command = line
        .replaceAll("localhost:8080", `localhost:${port}`)
        .replaceAll("localhost:8081", `localhost:${internalPort}`)
        .replaceAll("rd_…", key)
        .replaceAll('"password":"…"', `"password":"${password}"`);
      if (command.includes("…")) throw new Error(`a placeholder of the README is not filled in: ${line}`);
      const run = Bun.spawnSync(["bash", "-c", command], { cwd: work, stdout: "pipe", stderr: "pipe" });
      expect({ line, exit: run.exitCode }).toEqual({ line, exit: 0 });
      const answer = JSON.parse(run.stdout.toString());
      expect({ line, error: answer.error }).toEqual({ line, error: undefined });
      if (typeof answer.secret === "string") key = answer.secret;
      answers.push(answer);
    }
    expect(key).toMatch(/^rd_/);
    const rendered = answers.at(-1);
    expect(rendered.status).toBe("succeeded");
    const pdf = await fetch(rendered.result.downloadUrl);
    expect(pdf.status).toBe(200);
    expect(new TextDecoder().decode((await pdf.arrayBuffer()).slice(0, 5))).toBe("%PDF-");

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
