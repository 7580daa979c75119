import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { ok, startTestServer, type TestServer } from "../harness";
import { local } from "../fixtures/assets";
import { createLogger } from "../../src/logger";
import { CLI_ACTOR } from "../../src/auth/actor";
import { createWorkspace } from "../../src/modules/workspaces/service";
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from "../../src/webhooks/retry";
import { RENDER_DID_NOT_SUCCEED } from "../../src/destinations/deliveries";
import type { Resolver } from "../../src/webhooks/destinations";
import { attachmentOf, S3_BUCKET, S3_KEY, sha256Hex, startHttpReceiver, startS3, startSftpTarget, startSmtp, subjectOf, type Sshd } from "../destinations/servers";

// Fakes only at the edge we cannot reach: DNS answers.
const resolve: Resolver = async (host) => ({ "files.example.com": ["93.184.215.14"], "inside.example.com": ["10.1.2.3"] })[host] ?? [];
const SECRETS = ["sup3r-s3cret-password", "Bearer h1dden-t0ken", "S3RVER-not-this-one"];

let logs = "";
let t: TestServer; // DESTINATION_ALLOW_PRIVATE=1: the servers below are on loopback
let strict: TestServer;
let key: string;
let s3: Awaited<ReturnType<typeof startS3>>;
let sshd: Sshd;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let http: ReturnType<typeof startHttpReceiver>;

beforeAll(async () => {
  const sink = new Writable({ write: (chunk, _enc, done) => ((logs += chunk.toString()), done()) });
  [s3, sshd, smtp] = await Promise.all([startS3(), startSftpTarget(), startSmtp()]);
  http = startHttpReceiver();
  t = await startTestServer({ DESTINATION_ALLOW_PRIVATE: "1", RENDER_WORKERS: "1" }, undefined, { resolve, log: createLogger("trace", sink) });
  strict = await startTestServer({ RENDER_WORKERS: "1" }, undefined, { resolve });
  key = await t.makeKey(t.defaultWorkspaceId, ["destination:manage", "render:create", "render:read", "render:cancel", "template:write", "template:read", "audit:read"]);
});
afterAll(async () => {
  await t.stop();
  await strict.stop();
  http.stop();
  await Promise.all([s3.stop(), sshd.stop(), smtp.stop()]);
});

const s3Config = (over = {}) => ({ bucket: S3_BUCKET, region: "us-east-1", endpoint: s3.endpoint, forcePathStyle: true, prefix: "pdf/", ...S3_KEY, ...over });
const sftpConfig = (over = {}) => ({ host: "127.0.0.1", port: sshd.port, username: sshd.user, privateKey: sshd.privateKey, hostKeySha256: sshd.fingerprint, directory: sshd.directory, ...over });
const emailConfig = (over = {}) => ({ smtpHost: "127.0.0.1", smtpPort: smtp.port, secure: false, password: SECRETS[0], from: "renderd@example.test", to: ["books@example.test"], subject: "Invoice {{metadata.number}} for {{data.customer}}", ...over });
const httpConfig = (over = {}) => ({ url: `${http.url}/in`, method: "PUT", headers: { authorization: SECRETS[1] }, ...over });

async function create(type: string, config: unknown, name = `${type} destination`, server = t, as = key) {
  return server.call("/v1/destinations", { key: as, body: { name, type, config } });
}

const auditActions = async (id: string) => (await t.server.store.all<{ action: string; }>("SELECT action FROM audit_events WHERE resource_id = $id ORDER BY created_at, id", { id })).map((r) => r.action);

describe("destinations CRUD", () => {
  test("each type is created with its credentials masked in every answer and sealed in the store", async () => {
    const made = {
      s3: ok(await create("s3", s3Config({ secretAccessKey: SECRETS[2] })), 201),
      sftp: ok(await create("sftp", sftpConfig()), 201),
      email: ok(await create("email", emailConfig()), 201),
      http: ok(await create("http", httpConfig()), 201),
    };
    expect(made.s3.id).toMatch(/^dst_/);
    expect(made.s3.config).toEqual({ ...s3Config(), accessKeyId: "********", secretAccessKey: "********" });
    expect(made.sftp.config.privateKey).toBe("********");
    expect(made.sftp.config.hostKeySha256).toBe(sshd.fingerprint);
    expect(made.email.config.password).toBe("********");
    expect(made.http.config.headers).toEqual({ authorization: "********" });
    const listed = ok(await t.call("/v1/destinations?limit=2", { key }), 200);
    expect(listed.items.length).toBe(2);
    expect(listed.nextCursor).toBeString();
    const one = ok(await t.call(`/v1/destinations/${made.http.id}`, { key }), 200);
    expect(one).toEqual(made.http);
    const rows = JSON.stringify(await t.server.store.all("SELECT * FROM destinations"));
    for (const secret of [...SECRETS, sshd.privateKey.slice(40, 80)]) expect(rows).not.toContain(secret);
    for (const body of [JSON.stringify(made), JSON.stringify(listed)]) for (const secret of SECRETS) expect(body).not.toContain(secret);
  });

  test("PATCH renames and lays config fields over the stored ones; a masked credential sent back is kept; each change is audited", async () => {
    const d = ok(await create("http", httpConfig(), "before"), 201);
    const renamed = ok(await t.call(`/v1/destinations/${d.id}`, { key, method: "PATCH", body: { name: "after", config: { method: "POST", headers: { authorization: "********", "x-extra": "1" } } } }), 200);
    expect(renamed.name).toBe("after");
    expect(renamed.config).toEqual({ url: `${http.url}/in`, method: "POST", headers: { authorization: "********", "x-extra": "********" } });
    const tested = ok(await t.call(`/v1/destinations/${d.id}/test`, { key, method: "POST" }), 200);
    expect(tested.ok).toBe(true);
    const s3d = ok(await create("s3", s3Config()), 201);
    const unprefixed = ok(await t.call(`/v1/destinations/${s3d.id}`, { key, method: "PATCH", body: { config: { prefix: null } } }), 200);
    expect(unprefixed.config.prefix).toBeUndefined();
    expect(unprefixed.config.secretAccessKey).toBe("********");
    const got = http.requests.at(-1)!;
    expect(got.method).toBe("POST");
    expect(got.headers.get("authorization")).toBe(SECRETS[1]);
    expect(ok(await t.call(`/v1/destinations/${d.id}`, { key, method: "DELETE" }), 200)).toEqual({ id: d.id, deleted: true });
    expect((await t.call(`/v1/destinations/${d.id}`, { key })).status).toBe(404);
    expect(await auditActions(d.id)).toEqual(["destination.created", "destination.updated", "destination.deleted"]);
    const audit = JSON.stringify(await t.server.store.all("SELECT * FROM audit_events WHERE resource_id = $id", { id: d.id }));
    expect(audit).not.toContain(SECRETS[1]);
  });

  test("credentials that no longer decrypt (another SECRET_KEY) make the test say so; a PATCH giving them again mends it", async () => {
    const d = ok(await create("http", httpConfig()), 201);
    await t.server.store.tx((tx) => tx.run("UPDATE destinations SET secrets_encrypted = 'c2VhbGVkIHVuZGVyIGFub3RoZXIga2V5IGVudGlyZWx5' WHERE id = $id", { id: d.id }));
    expect(ok(await t.call(`/v1/destinations/${d.id}`, { key }), 200).config).toEqual({ url: `${http.url}/in`, method: "PUT" });
    const broken = ok(await t.call(`/v1/destinations/${d.id}/test`, { key, method: "POST" }), 200);
    expect(broken).toEqual({ ok: false, error: expect.stringContaining("cannot be decrypted") });
    ok(await t.call(`/v1/destinations/${d.id}`, { key, method: "PATCH", body: { config: { headers: { authorization: "Bearer again" } } } }), 200);
    expect(ok(await t.call(`/v1/destinations/${d.id}/test`, { key, method: "POST" }), 200).ok).toBe(true);
    expect(http.requests.at(-1)!.headers.get("authorization")).toBe("Bearer again");
  });

  test("another workspace's destination is 404; without destination:manage it is 403", async () => {
    const d = ok(await create("http", httpConfig()), 201);
    const ws = await t.server.store.tx((tx) => createWorkspace(tx, t.clock, { actor: CLI_ACTOR, requestId: "test" }, { name: "Other", slug: "other-dest" }));
    const other = await t.makeKey(ws.id, ["destination:manage"]);
    for (const [method, path] of [["GET", ""], ["PATCH", ""], ["DELETE", ""], ["POST", "/test"], ["GET", "/deliveries"]] as const) {
      const res = await t.call(`/v1/destinations/${d.id}${path}`, { key: other, method, body: method === "PATCH" ? { name: "x" } : undefined });
      expect(res.status).toBe(404);
    }
    const noScope = await t.makeKey(t.defaultWorkspaceId, ["render:create"]);
    expect((await t.call("/v1/destinations", { key: noScope })).status).toBe(403);
  });
});

describe("destinations 4xx", () => {
  test("an unknown type is 400 at /type", async () => {
    const res = await create("ftp", {});
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe("/type");
  });

  test("sftp without hostKeySha256, with a malformed one, or with no way to sign in is 400 pointing at the field", async () => {
    const { hostKeySha256: _, ...noPin } = sftpConfig();
    const missing = await create("sftp", noPin);
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([{ path: "/config/hostKeySha256", message: expect.stringContaining("ssh-keygen -lf") }]);
    const malformed = await create("sftp", sftpConfig({ hostKeySha256: "aa:bb:cc" }));
    expect(malformed.body.error.details[0].path).toBe("/config/hostKeySha256");
    expect(malformed.body.error.details[0].message).toContain("ssh-keygen -lf");
    const { privateKey: __, ...noKey } = sftpConfig();
    const noAuth = await create("sftp", noKey);
    expect(noAuth.body.error.details).toEqual([{ path: "/config/password", message: "give a password or a privateKey" }]);
  });

  test("a field of another type, or none at all, is 400 naming it", async () => {
    const res = await create("http", { ...httpConfig(), bucket: "x" });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ path: "/config/bucket", message: "is not an allowed field" });
    expect((await create("email", emailConfig({ to: [] }))).body.error.details[0].path).toBe("/config/to");
  });

  test("without DESTINATION_ALLOW_PRIVATE private and loopback hosts and plain http are refused (spec 6.7)", async () => {
    const strictKey = await strict.makeKey(strict.defaultWorkspaceId, ["destination:manage"]);
    const cases: Array<[string, unknown, string]> = [
      ["sftp", sftpConfig(), "/config/host"],
      ["email", emailConfig({ smtpHost: "inside.example.com" }), "/config/smtpHost"],
      ["http", httpConfig({ url: "https://127.0.0.1/in" }), "/config/url"],
      ["http", httpConfig({ url: "http://files.example.com/in" }), "/config/url"],
      ["s3", s3Config(), "/config/endpoint"],
    ];
    for (const [type, config, path] of cases) {
      const res = await create(type, config, "x", strict, strictKey);
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].path).toBe(path);
      expect(res.body.error.details[0].message).toContain("DESTINATION_ALLOW_PRIVATE=1");
    }
    expect((await create("http", httpConfig({ url: "https://files.example.com/in" }), "public", strict, strictKey)).status).toBe(201);
    const unknown = await create("http", httpConfig({ url: "https://nowhere.example.com/in" }), "x", strict, strictKey);
    expect(unknown.body.error.details).toEqual([{ path: "/config/url", message: "The URL's host (nowhere.example.com) does not resolve." }]);
  });

  test("a render naming more than 5 destinations, or one that does not exist, is 400 pointing at it", async () => {
    const ids = ["dst_a", "dst_b", "dst_c", "dst_d", "dst_e", "dst_f"];
    const many = await t.call("/v1/renders", { key, body: { html: "<p>x</p>", destinationIds: ids } });
    expect(many.status).toBe(400);
    expect(many.body.error.details[0].path).toBe("/destinationIds");
    const unknown = await t.call("/v1/renders", { key, body: { html: "<p>x</p>", destinationIds: ["dst_nope"] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([{ path: "/destinationIds/0", message: "no destination dst_nope in this workspace; list them with GET /v1/destinations" }]);
  });

  test("a template's default naming a deleted destination is refused for its renders, unless the render gives its own list", async () => {
    const d = ok(await create("http", httpConfig()), 201);
    const tpl = ok(await t.call("/v1/templates", { key, body: { name: "Defaulted", content: { type: "text", text: "x" }, destinationIds: [d.id] } }), 201);
    ok(await t.call(`/v1/destinations/${d.id}`, { key, method: "DELETE" }), 200);
    const refused = await t.call("/v1/renders", { key, body: { templateId: tpl.id, test: true } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0]).toEqual({ path: "/destinationIds/0", message: expect.stringContaining("the template's default destinationIds") });
    const own = await t.call("/v1/renders", { key, body: { templateId: tpl.id, test: true, destinationIds: [] } });
    expect(own.status).toBe(202);
    expect(own.body.deliveries).toBeUndefined();
  });
});

describe("deliveries", () => {
  test("a succeeded render's PDF reaches s3, sftp, e-mail and http byte for byte, names and subject filled in", async () => {
    const ids = [
      ok(await create("s3", s3Config()), 201).id,
      ok(await create("sftp", sftpConfig()), 201).id,
      ok(await create("email", emailConfig()), 201).id,
      ok(await create("http", httpConfig()), 201).id,
    ];
    const tpl = ok(await t.call("/v1/templates", { key, body: { name: "Invoice", content: { type: "text", text: "Invoice" }, destinationIds: ids } }), 201);
    expect(tpl.draft.destinationIds).toEqual(ids);
    const render = ok(await t.call("/v1/renders?wait=30", { key, body: { templateId: tpl.id, test: true, data: { customer: "ACME" }, metadata: { number: 42 }, filename: "invoice-{{metadata.number}}.pdf" } }), 200);
    expect(render.status).toBe("succeeded");
    await t.server.deliveries.runOnce();
    const after = ok(await t.call(`/v1/renders/${render.id}`, { key }), 200);
    expect(after.deliveries.map((d: any) => [d.destinationId, d.status, d.attempts])).toEqual(ids.map((id) => [id, "delivered", 1]));
    expect(after.deliveries.map((d: any) => d.location)).toEqual([
      `s3://${S3_BUCKET}/pdf/invoice-42.pdf`,
      `sftp://127.0.0.1:${sshd.port}${sshd.directory}/invoice-42.pdf`,
      "mailto:books@example.test",
      `${http.url}/in`,
    ]);
    expect(after.deliveries[0].deliveredAt).toBe(t.clock.now().toISOString());
    const pdf = new Uint8Array(await (await fetch(local(t, render.result.downloadUrl))).arrayBuffer());
    const want = sha256Hex(pdf);
    expect(sha256Hex(await s3.read("pdf/invoice-42.pdf"))).toBe(want);
    expect(sha256Hex(readFileSync(join(sshd.directory, "invoice-42.pdf")))).toBe(want);
    const mail = smtp.messages.at(-1)!;
    expect(subjectOf(mail.raw)).toBe("Invoice 42 for ACME");
    expect(attachmentOf(mail.raw).filename).toBe("invoice-42.pdf");
    expect(sha256Hex(attachmentOf(mail.raw).bytes)).toBe(want);
    expect(sha256Hex(http.requests.at(-1)!.bytes)).toBe(want);
    const listed = ok(await t.call(`/v1/destinations/${ids[1]}/deliveries`, { key }), 200);
    expect(listed.items[0]).toMatchObject({ renderId: render.id, status: "delivered", attempts: 1 });
  });

  test("a wrong host key fails the delivery with a clear lastError, retried on the webhook schedule, survives a restart; the render stays succeeded", async () => {
    const wrong = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    const d = ok(await create("sftp", sftpConfig({ hostKeySha256: wrong })), 201);
    const render = ok(await t.call("/v1/renders?wait=30", { key, body: { html: "<p>pinned</p>", filename: "pinned.pdf", destinationIds: [d.id] } }), 200);
    // The ?wait answer shows the render's deliveries as its end left them.
    expect(render.deliveries).toEqual([{ destinationId: d.id, status: "pending", attempts: 0 }]);
    await t.server.deliveries.runOnce();
    let shown = ok(await t.call(`/v1/renders/${render.id}`, { key }), 200);
    expect(shown.status).toBe("succeeded");
    expect(shown.deliveries[0]).toMatchObject({ status: "pending", attempts: 1 });
    expect(shown.deliveries[0].lastError).toContain(`not the hostKeySha256 configured (${wrong})`);
    const listed = ok(await t.call(`/v1/destinations/${d.id}/deliveries`, { key }), 200);
    expect(listed.items[0].nextAttemptAt).toBe(new Date(t.clock.now().getTime() + RETRY_DELAYS_MS[0]!).toISOString());

    await t.restart();
    for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
      t.clock.advance(RETRY_DELAYS_MS[attempt - 2]!);
      await t.server.deliveries.runOnce();
    }
    shown = ok(await t.call(`/v1/renders/${render.id}`, { key }), 200);
    expect(shown.status).toBe("succeeded");
    expect(shown.deliveries[0]).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS });
  });

  test("a pending delivery goes out after a restart once the destination is mended", async () => {
    const d = ok(await create("sftp", sftpConfig({ hostKeySha256: "SHA256:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB" })), 201);
    const render = ok(await t.call("/v1/renders?wait=30", { key, body: { html: "<p>mended</p>", filename: "mended.pdf", destinationIds: [d.id] } }), 200);
    await t.server.deliveries.runOnce();
    await t.restart();
    ok(await t.call(`/v1/destinations/${d.id}`, { key, method: "PATCH", body: { config: { hostKeySha256: sshd.fingerprint } } }), 200);
    t.clock.advance(RETRY_DELAYS_MS[0]!);
    await t.server.deliveries.runOnce();
    const shown = ok(await t.call(`/v1/renders/${render.id}`, { key }), 200);
    expect(shown.deliveries[0]).toMatchObject({ status: "delivered", attempts: 2 });
    expect(readFileSync(join(sshd.directory, "mended.pdf")).length).toBe(shown.result.bytes);
  });

  test("a cancelled render's deliveries fail unsent", async () => {
    const d = ok(await create("http", httpConfig()), 201);
    const before = http.requests.length;
    // The queue held (the drain's pause), so the cancel meets the render queued however fast the page prints.
    t.server.worker.pause(true);
    const render = ok(await t.call("/v1/renders", { key, body: { html: "<p>never</p>", destinationIds: [d.id] } }), 202);
    try {
      ok(await t.call(`/v1/renders/${render.id}/cancel`, { key, method: "POST" }), 200);
    } finally {
      t.server.worker.pause(false);
    }
    await t.server.deliveries.runOnce();
    const shown = ok(await t.call(`/v1/renders/${render.id}`, { key }), 200);
    expect(shown.deliveries).toEqual([{ destinationId: d.id, status: "failed", attempts: 0, lastError: RENDER_DID_NOT_SUCCEED }]);
    expect(http.requests.length).toBe(before);
  });

  test("POST /test answers where the test file went, or why it did not", async () => {
    const good = ok(await create("s3", s3Config()), 201);
    const res = ok(await t.call(`/v1/destinations/${good.id}/test`, { key, method: "POST" }), 200);
    expect(res.ok).toBe(true);
    expect(res.location).toMatch(new RegExp(`^s3://${S3_BUCKET}/pdf/renderd-test-.*\\.txt$`));
    expect(new TextDecoder().decode(await s3.read(res.location.slice(`s3://${S3_BUCKET}/`.length)))).toContain(good.id);
    const bad = ok(await create("s3", s3Config({ bucket: "no-such-bucket" })), 201);
    const failed = ok(await t.call(`/v1/destinations/${bad.id}/test`, { key, method: "POST" }), 200);
    expect(failed.ok).toBe(false);
    expect(failed.error).toBeString();
  });

  test("no secret ever reached the log", () => {
    expect(logs).toContain("destination delivery attempt");
    for (const secret of [...SECRETS, S3_KEY.secretAccessKey, sshd.privateKey.slice(40, 80)]) expect(logs).not.toContain(secret);
  });
});
