/** Certificates over HTTP (issue 13): upload a PKCS#12, read, list, delete; every unusable file is a 422 naming the field. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { makePkcs12 } from "../pdf/certs";

let t: TestServer;
let key: string;
const p12 = Buffer.from(makePkcs12({ commonName: "Acme Invoicing" })).toString("base64");

beforeAll(async () => {
  t = await startTestServer();
  // openssl makes certificates valid from the moment they are made: ten minutes ahead, the server's clock is past
  // the start of every certificate this file makes.
  t.clock.set(new Date(Date.now() + 10 * 60_000));
  key = await t.makeKey(t.defaultWorkspaceId, ["certificate:manage", "audit:read"]);
});
afterAll(() => t.stop());

const upload = (body: unknown, as = key) => t.call("/v1/certificates", { key: as, body });

describe("POST /v1/certificates", () => {
  test("answers 201 with the certificate's facts, never the key or the password; the store holds only ciphertext", async () => {
    const res = await upload({ name: "Invoices", pkcs12: p12, password: "secret" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^crt_/),
      name: "Invoices",
      subject: expect.stringContaining("CN=Acme Invoicing"),
      issuer: expect.stringContaining("CN=Acme Invoicing"),
      serialNumber: expect.stringMatching(/^[0-9a-f]+$/),
      notBefore: expect.any(String),
      notAfter: expect.any(String),
      sha256Fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      createdAt: t.clock.now().toISOString(),
    });
    const row = (await t.server.store.get<{ pkcs12_encrypted: string }>("SELECT pkcs12_encrypted FROM certificates WHERE id = $id", { id: res.body.id }))!;
    expect(row.pkcs12_encrypted).not.toContain(p12.slice(0, 40));
    expect(Buffer.from(row.pkcs12_encrypted, "base64").toString("latin1")).not.toContain("secret");
    const audit = await t.call(`/v1/audit-events?resourceId=${res.body.id}`, { key });
    expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual(["certificate.created"]);
  });

  test("accepts a legacy (3DES) export", async () => {
    const legacy = Buffer.from(makePkcs12({ legacy: true })).toString("base64");
    expect((await upload({ name: "Legacy", pkcs12: legacy, password: "secret" })).status).toBe(201);
  });

  const refusals: [string, () => unknown, string, RegExp][] = [
    ["bytes that are not PKCS#12", () => ({ name: "x", pkcs12: Buffer.from("hello world").toString("base64"), password: "secret" }), "/pkcs12", /not a readable PKCS#12/],
    ["a wrong password", () => ({ name: "x", pkcs12: p12, password: "wrong" }), "/password", /password does not open/],
    ["a file without a private key", () => ({ name: "x", pkcs12: Buffer.from(makePkcs12({ noKey: true })).toString("base64"), password: "secret" }), "/pkcs12", /no private key/],
    ["an unsupported key type (Ed25519)", () => ({ name: "x", pkcs12: Buffer.from(makePkcs12({ key: "ed25519" })).toString("base64"), password: "secret" }), "/pkcs12", /key type is not supported/],
  ];
  for (const [what, body, path, message] of refusals)
    test(`refuses ${what} with 422 ASSET_INVALID at ${path}`, async () => {
      const res = await upload(body());
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("ASSET_INVALID");
      expect(res.body.error.details).toEqual([{ path, message: expect.stringMatching(message) }]);
    });

  test("refuses an expired certificate with 422", async () => {
    const shortLived = Buffer.from(makePkcs12({ days: 1 })).toString("base64");
    const now = t.clock.now();
    t.clock.advance(2 * 24 * 3600 * 1000);
    try {
      const res = await upload({ name: "Old", pkcs12: shortLived, password: "secret" });
      expect(res.status).toBe(422);
      expect(res.body.error.details[0]).toEqual({ path: "/pkcs12", message: expect.stringContaining("expired") });
    } finally {
      t.clock.set(now);
    }
  });

  test("refuses a body that is not base64 or too large with 400, and a key without certificate:manage with 403", async () => {
    expect((await upload({ name: "x", pkcs12: "not base64!", password: "" })).status).toBe(400);
    expect((await upload({ name: "x", pkcs12: "A".repeat(140_000), password: "" })).status).toBe(400);
    expect((await upload({ name: "x", pkcs12: p12 })).status).toBe(400);
    const reader = await t.makeKey(t.defaultWorkspaceId, ["render:read"]);
    expect((await upload({ name: "x", pkcs12: p12, password: "secret" }, reader)).status).toBe(403);
  });
});

describe("GET and DELETE /v1/certificates", () => {
  test("lists newest first in pages, reads one, deletes it (audited); another workspace's is 404", async () => {
    const a = (await upload({ name: "A", pkcs12: p12, password: "secret" })).body;
    t.clock.advance(1000);
    const b = (await upload({ name: "B", pkcs12: p12, password: "secret" })).body;
    const page = await t.call("/v1/certificates?limit=1", { key });
    expect(page.status).toBe(200);
    expect(page.body.items).toEqual([b]);
    const next = await t.call(`/v1/certificates?limit=1&cursor=${page.body.nextCursor}`, { key });
    expect(next.body.items).toEqual([a]);
    expect((await t.call(`/v1/certificates/${a.id}`, { key })).body).toEqual(a);

    const other = await t.makeWorkspace("Other Co");
    const otherKey = await t.makeKey(other.id, ["certificate:manage"]);
    expect((await t.call(`/v1/certificates/${a.id}`, { key: otherKey })).status).toBe(404);
    expect((await t.call(`/v1/certificates/${a.id}`, { key: otherKey, method: "DELETE" })).status).toBe(404);

    const deleted = await t.call(`/v1/certificates/${a.id}`, { key, method: "DELETE" });
    expect(deleted.body).toEqual({ id: a.id, deleted: true });
    expect((await t.call(`/v1/certificates/${a.id}`, { key })).status).toBe(404);
    const audit = await t.call(`/v1/audit-events?resourceId=${a.id}`, { key });
    expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual(["certificate.deleted", "certificate.created"]);
  });
});
