import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openStore } from "../src/store/open";
import { ADMIN_EMAIL, ADMIN_PASSWORD, ok, startTestServer } from "./harness";
import { collectedLog } from "./log-lines";
import { readUntil } from "./serve-process";
import { until } from "./wait";
import type { SqliteStore } from "../src/store/sqlite-store";

const root = resolve(import.meta.dir, "..");

describe("graceful stop", () => {
  test("a request in flight when stop begins is answered; new connections are refused", async () => {
    const t = await startTestServer();
    const url = t.url;
    let push!: (s: string) => void;
    let end!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        push = (s) => c.enqueue(new TextEncoder().encode(s));
        end = () => c.close();
      },
    });
    // A sign-in whose body is still arriving is in flight.
    const inFlight = fetch(`${url}/v1/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      // @ts-expect-error streaming request body
      duplex: "half",
    });
    push(`{"email":"${ADMIN_EMAIL}",`);
    // In flight means the server has the request, not merely that the client sent it: a fixed sleep lost that race on a
    // loaded machine.
    await until(() => t.server.pendingRequests() > 0);
    const stopped = t.stop();
    await Bun.sleep(50);
    push(`"password":"${ADMIN_PASSWORD}"}`);
    end();
    const res = await inFlight;
    expect(res.status).toBe(200);
    await stopped;
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });
});

describe("readiness over HTTP", () => {
  test("/health answers 503 naming the database once the store cannot be queried", async () => {
    const t = await startTestServer();
    try {
      expect((await t.call("/health")).status).toBe(200);
      (t.server.store as SqliteStore).db.close(false);
      const res = await t.call("/health");
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: "unavailable", unavailable: ["database"] });
    } finally {
      await t.stop();
    }
  });
});

describe("first start", () => {
  test("a first start that fails (port taken) creates no administrator and prints no password; the next start does", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "renderd-first-"));
    const taken = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const failed = Bun.spawn([process.execPath, "cli/main.ts", "serve", "--port", String(taken.port), "--internal-port", "0", "--host", "127.0.0.1"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir, LOG_LEVEL: "info" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const failedCode = await failed.exited;
    taken.stop(true);
    expect(failedCode).not.toBe(0);
    expect(await new Response(failed.stderr).text()).toContain(String(taken.port));
    expect(await new Response(failed.stdout).text()).not.toContain("password");
    const store = openStore(dataDir);
    try {
      expect((await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM users"))!.n).toBe(0);
    } finally {
      await store.close();
    }

    const port = 20000 + Math.floor(Math.random() * 20000);
    const proc = Bun.spawn([process.execPath, "cli/main.ts", "serve", "--port", String(port), "--internal-port", "0", "--host", "127.0.0.1"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir, LOG_LEVEL: "info" },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const reader = proc.stdout.getReader();
      const out = await readUntil(reader, "renderd listening");
      const password = /generated password \(shown once, change it\): (\S+)/.exec(out)?.[1];
      expect(password).toBeTruthy();
      // Printed for the operator, never written into a log line.
      const logLines = out.split("\n").filter((l) => l.startsWith("{"));
      expect(logLines.some((l) => l.includes(password!))).toBe(false);
      const res = await fetch(`http://127.0.0.1:${port}/v1/auth/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "admin@renderd.local", password }),
      });
      expect(res.status).toBe(200);
      reader.releaseLock();
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
    // The store the first start wrote is complete: nothing is left to migrate.
    const again = Bun.spawnSync([process.execPath, "cli/main.ts", "migrate", "--json"], { cwd: root, env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir } });
    expect(JSON.parse(again.stdout.toString())).toEqual({ applied: [] });
    rmSync(dataDir, { recursive: true, force: true });
  });
});

describe("a render whose end cannot be written", () => {
  test("goes back to the queue and is printed again once the store takes the write, without a restart; logged once; the server goes on serving", async () => {
    const { log, lines } = collectedLog();
    const t = await startTestServer({ RENDER_WORKERS: "1" }, undefined, { log });
    try {
      const key = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read"]);
      const store = t.server.store as SqliteStore;
      // The store refuses every final state, as a full disk or a lost database would.
      store.db.run("CREATE TRIGGER refuse_end BEFORE UPDATE OF status ON renders WHEN NEW.status IN ('succeeded', 'failed') BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
      const id = ok(await t.call("/v1/renders", { key, body: { html: "<p>unwritable</p>", test: true } }), 202).id;
      const failedOnce = () => lines.some((l) => l.msg === "claiming or ending renders failed; retrying with back-off until it works");
      const status = async () => (await store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id }))?.status;
      await until(async () => failedOnce() && t.server.worker.inFlight().length === 0 && (await status()) === "queued", 15_000);
      expect((await t.call("/health")).status).toBe(200);
      expect((await t.call(`/v1/renders/${id}`, { key })).status).toBe(200);
      store.db.run("DROP TRIGGER refuse_end");
      // Taken again after the back-off (at most 8 s), by the same process.
      await until(async () => (await status()) === "succeeded", 15_000);
      const next = ok(await t.call("/v1/renders?wait=30", { key, body: { html: "<p>after</p>", test: true } }), 200);
      expect(next.status).toBe("succeeded");
      const said = (msg: string) => lines.filter((l) => l.msg === msg).length;
      expect([said("claiming or ending renders failed; retrying with back-off until it works"), said("claiming or ending renders works again")]).toEqual([1, 1]);
    } finally {
      await t.stop();
    }
  });
});
