/** The log at its most verbose carries none of the secrets a session of ordinary use hands out (docs/security.md). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { createLogger } from "../src/logger";
import { ADMIN_PASSWORD, startTestServer, type TestServer } from "./harness";
import { makePkcs12 } from "./pdf/certs";
import { RECEIVER_ENV } from "./webhooks/receiver";

const lines: string[] = [];
let t: TestServer;
beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  t = await startTestServer({ ...RECEIVER_ENV }, undefined, { log: createLogger("trace", sink) });
});
afterAll(() => t.stop());

test("no password, key, one-time password, webhook secret, signing certificate or signed address reaches the log", async () => {
  const pkcs12 = Buffer.from(makePkcs12({ password: "pkcs12-password-1" })).toString("base64");
  // openssl made the certificate valid from now: the server's clock goes past that before anything else happens.
  t.clock.set(new Date(Date.now() + 10 * 60_000));
  const admin = await t.signIn();
  const key = await t.call("/v1/api-keys", { cookie: admin, body: { name: "logged", scopes: ["render:create", "render:read"] } });
  expect(key.status).toBe(201);
  const member = await t.call("/v1/members", { cookie: admin, body: { email: "new.person@example.com", role: "member" } });
  expect(member.body.oneTimePassword).toBeString();
  const endpoint = await t.call("/v1/webhook-endpoints", { cookie: admin, body: { url: "http://127.0.0.1:9/hook", eventTypes: ["render.succeeded"] } });
  expect(endpoint.status).toBe(201);
  const certificate = await t.call("/v1/certificates", { cookie: admin, body: { name: "logged", pkcs12, password: "pkcs12-password-1" } });
  expect(certificate.status).toBe(201);
  expect((await t.call("/v1/certificates", { cookie: admin, body: { name: "logged", pkcs12, password: "wrong-pkcs12-password" } })).status).toBe(422);
  const render = await t.call("/v1/renders?wait=30", { key: key.body.secret, body: { html: "<p>logged</p>" } });
  expect(render.body.status).toBe("succeeded");
  const download = new URL(render.body.result.downloadUrl);
  expect((await fetch(t.url + download.pathname + download.search)).status).toBe(200);
  const changed = await t.call("/v1/auth/password", { cookie: admin, body: { currentPassword: ADMIN_PASSWORD, newPassword: "another long passphrase" } });
  expect(changed.status).toBe(200);

  const log = lines.join("");
  expect(log).toContain('"msg":"request"'); // the sink did receive the request lines
  const secrets = {
    adminPassword: ADMIN_PASSWORD,
    newPassword: "another long passphrase",
    apiKey: key.body.secret,
    oneTimePassword: member.body.oneTimePassword,
    webhookSecret: endpoint.body.secret.slice("whsec_".length),
    downloadToken: download.searchParams.get("token")!,
    pkcs12Password: "pkcs12-password",
    pkcs12: pkcs12.slice(100, 160),
  };
  for (const [name, secret] of Object.entries(secrets)) expect({ name, logged: log.includes(secret) }).toEqual({ name, logged: false });
});

test("a field named as a secret is censored at a line's top level and one level down, the logged objects left as they were", () => {
  const written: string[] = [];
  const log = createLogger("info", new Writable({ write: (chunk, _encoding, done) => (written.push(chunk.toString()), done()) }));
  const endpoint = { id: "whe_1", secret: "whsec_abc" };
  const headers = { cookie: "renderd_session=s3cret", "x-api-key": "rk_live_1", accept: "*/*" };
  const failure = Object.assign(new Error("upload refused"), { password: "smtp-pass" });
  const fields = { token: "t0k3n", endpoint, headers, asset: { uploadUrl: "https://s3/put?sig=1", downloadUrl: "https://s3/get?sig=2" }, err: failure, pages: 3, list: [{ secret: "kept in a list" }] };
  log.info(fields, "line");
  const line = JSON.parse(written[0]!);
  expect(line.token).toBe("[redacted]");
  expect(line.endpoint).toEqual({ id: "whe_1", secret: "[redacted]" });
  expect(line.headers).toEqual({ cookie: "[redacted]", "x-api-key": "[redacted]", accept: "*/*" });
  expect(line.asset).toEqual({ uploadUrl: "[redacted]", downloadUrl: "[redacted]" });
  expect(line.err).toMatchObject({ type: "Error", message: "upload refused", password: "[redacted]" });
  expect(line.err.stack).toContain("upload refused");
  expect(line.pages).toBe(3);
  // Not a field of a record: an array's items are not looked into (nor were they by the redaction paths before).
  expect(line.list).toEqual([{ secret: "kept in a list" }]);
  expect(fields.token).toBe("t0k3n");
  expect(fields.endpoint).toBe(endpoint);
  expect(endpoint.secret).toBe("whsec_abc");
  expect(headers.cookie).toBe("renderd_session=s3cret");
  expect(failure.password).toBe("smtp-pass");
});
