/** harness: starts the real server on free ports with a temporary DATA_DIR, and speaks HTTP to it. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { ManualClock } from "../src/lib/clock";
import { createLogger } from "../src/logger";
import { startServer, type RunningServer, type ServerOptions } from "../src/server";
import type { Role, Scope } from "../src/auth/scopes";
import { CLI_ACTOR } from "../src/auth/actor";
import { createUser, hashPassword } from "../src/modules/users/service";
import { createWorkspace } from "../src/modules/workspaces/service";
import { createApiKey } from "../src/modules/api-keys/service";
import { sharedStoreEnv, testStoreEngine } from "./backends";

export const ADMIN_EMAIL = "admin@example.test";
export const ADMIN_PASSWORD = "admin-password-1";
export const PUBLIC_URL = "http://console.example.test";

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  /** Raw body text, sent as is (for malformed JSON). */
  raw?: string;
  key?: string;
  cookie?: string;
  /** Origin header; defaults to PUBLIC_URL's when a cookie is sent. */
  origin?: string | null;
  headers?: Record<string, string>;
}

export interface TestServer {
  url: string;
  internalUrl: string;
  dataDir: string;
  clock: ManualClock;
  server: RunningServer;
  call<T = any>(path: string, options?: CallOptions): Promise<Reply<T>>;
  signIn(email?: string, password?: string, workspaceId?: string): Promise<string>;
  /** defaultWorkspaceId is workspace `default`, made on first start. */
  defaultWorkspaceId: string;
  /** makeWorkspace creates a workspace with an owner; answers its id and the owner's session cookie. */
  makeWorkspace(name: string, role?: Role): Promise<{ id: string; email: string; password: string; cookie: string }>;
  /** makeKey creates an API key directly in the store and answers its secret. */
  makeKey(workspaceId: string, scopes: Scope[], expiresInDays?: number): Promise<string>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

let counter = 0;
/** The shared store of each DATA_DIR, so a server started again on a kept DATA_DIR finds its data (RENDERD_TEST_STORE=postgres). */
const sharedStores = new Map<string, Record<string, string>>();

/** startTestServer starts renderd in this process with a manual clock; `env` overrides settings. */
export async function startTestServer(
  env: Record<string, string> = {},
  keepDataDir?: string,
  /** Server options beyond configuration: a fake DNS resolver, a shorter webhook timeout, a logger to read. */
  options: Pick<ServerOptions, "resolve" | "webhookTimeoutMs" | "log"> = {},
): Promise<TestServer> {
  const dataDir = keepDataDir ?? mkdtempSync(join(tmpdir(), "renderd-test-"));
  let shared: Record<string, string> = {};
  if (testStoreEngine() === "postgres" && env.DATABASE_URL === undefined) {
    shared = sharedStores.get(dataDir) ?? (await sharedStoreEnv());
    sharedStores.set(dataDir, shared);
  }
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  const config = () =>
    loadConfig({
      DATA_DIR: dataDir,
      PORT: "0",
      INTERNAL_PORT: "0",
      HOST: "127.0.0.1",
      PUBLIC_URL,
      LOG_LEVEL: "silent",
      RENDERD_ADMIN_EMAIL: ADMIN_EMAIL,
      RENDERD_ADMIN_PASSWORD: ADMIN_PASSWORD,
      API_RATE_LIMIT_PER_MINUTE: "100000",
      // Stopping requeues printing renders at once, as the restart tests expect; test/sigterm.test.ts covers the grace.
      SHUTDOWN_GRACE_MS: "0",
      ...shared,
      ...env,
    });
  let server = await startServer({ ...options, config: config(), clock, log: options.log ?? createLogger("silent") });

  const t: TestServer = {
    url: server.url,
    internalUrl: `http://127.0.0.1:${server.internalPort}`,
    dataDir,
    clock,
    server,
    defaultWorkspaceId: (await server.store.get<{ id: string }>("SELECT id FROM workspaces WHERE slug = 'default'"))!.id,
    async call(path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      let body: string | undefined;
      if (options.raw !== undefined) body = options.raw;
      else if (options.body !== undefined) body = JSON.stringify(options.body);
      if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json";
      if (options.key) headers["x-api-key"] = options.key;
      if (options.cookie) {
        headers.cookie = options.cookie;
        const origin = options.origin === undefined ? PUBLIC_URL : options.origin;
        if (origin !== null) headers.origin = origin;
      } else if (options.origin) headers.origin = options.origin;
      const res = await fetch(t.url + path, { method: options.method ?? (body !== undefined ? "POST" : "GET"), headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: the raw text is the body
      }
      return { status: res.status, body: parsed as any, headers: res.headers };
    },
    async signIn(email = ADMIN_EMAIL, password = ADMIN_PASSWORD) {
      const res = await t.call("/v1/auth/sign-in", { body: { email, password } });
      if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
      const setCookie = res.headers.get("set-cookie")!;
      return setCookie.split(";")[0]!;
    },
    async makeWorkspace(name, role = "owner") {
      counter += 1;
      const email = `user${counter}-${Date.now()}@example.test`;
      const password = `password-${counter}-x`;
      const passwordHash = await hashPassword(password);
      const ctx = { actor: CLI_ACTOR, requestId: "test-setup" };
      const id = await server.store.tx(async (tx) => {
        const ws = await createWorkspace(tx, clock, ctx, { name, slug: `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${counter}` });
        await createUser(tx, clock, ctx, { email, passwordHash, workspace: ws.id, role, platformAdmin: false });
        return ws.id;
      });
      return { id, email, password, cookie: await t.signIn(email, password) };
    },
    async makeKey(workspaceId, scopes, expiresInDays) {
      return (await createApiKey(server.store, clock, { actor: CLI_ACTOR, requestId: "test-setup" }, workspaceId, { name: "test key", scopes, expiresInDays })).secret;
    },
    async restart() {
      await server.stop();
      server = await startServer({ ...options, config: config(), clock, log: options.log ?? createLogger("silent") });
      t.server = server;
      t.url = server.url;
      t.internalUrl = `http://127.0.0.1:${server.internalPort}`;
    },
    async stop() {
      await server.stop();
      if (!keepDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/** ok answers the body of a reply with the expected status, or fails showing what was answered instead. */
export function ok<T = any>(res: Reply<T>, status: number): T {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}
