/** Signed and password-protected renders over HTTP (issue 13): the certificate is checked when a render is accepted and
 * again when its PDF is signed; a signed PDF is valid for pdfsig over the whole file, and one that cannot be signed is
 * never delivered; `pdf.password` encrypts, before the signature. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { local } from "../fixtures/assets";
import { startTestServer, type TestServer } from "../harness";
import { makePkcs12, poppler } from "../pdf/certs";
import { startTsa } from "../pdf/tsa";
import { until } from "../wait";

let t: TestServer;
let key: string;

const invoice = "<h1>Invoice 42</h1><p>Total: 100 EUR</p>";

beforeAll(async () => {
  t = await startTestServer();
  // openssl makes certificates valid from the moment they are made: ten minutes ahead, the server's clock is past
  // the start of every certificate this file makes.
  t.clock.set(new Date(Date.now() + 10 * 60_000));
  key = await t.makeKey(t.defaultWorkspaceId, ["certificate:manage", "render:create", "render:read", "template:write", "template:publish"]);
});
afterAll(() => t.stop());

async function uploadCertificate(options: Parameters<typeof makePkcs12>[0] = {}, as = key): Promise<string> {
  const res = await t.call("/v1/certificates", { key: as, body: { name: "Signing", pkcs12: Buffer.from(makePkcs12(options)).toString("base64"), password: "secret" } });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** ended polls a render until it reaches a final state (GET has no ?wait). */
async function ended(id: string) {
  const status = async () => (await t.server.store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id }))!.status;
  await until(async () => !["queued", "processing"].includes(await status()), 30_000);
  return (await t.call(`/v1/renders/${id}`, { key })).body;
}

async function downloadPdf(url: string): Promise<Uint8Array> {
  const res = await fetch(local(t, url));
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

function expectSignedBy(pdf: Uint8Array, commonName: string): string {
  const check = poppler("pdfsig", pdf);
  expect(check.out).toContain("Signature Validation: Signature is Valid.");
  expect(check.out).toContain(`Signer Certificate Common Name: ${commonName}`);
  expect(check.out).toContain("Signature Type: ETSI.CAdES.detached");
  expect(check.out).toContain("Total document signed");
  expect(check.out).toContain(`- ${pdf.length}]`);
  return check.out;
}

describe("signed renders", () => {
  test("a render with a signature is stored signed: pdfsig finds it valid over the whole file, naming the signer", async () => {
    const certificateId = await uploadCertificate({ commonName: "Acme Billing" });
    const res = await t.call("/v1/renders?wait=30", { key, body: { html: invoice, signature: { certificateId, reason: "Invoice issued", location: "Berlin" } } });
    expect(res.body.status).toBe("succeeded");
    const pdf = await downloadPdf(res.body.result.downloadUrl);
    expect(res.body.result.bytes).toBe(pdf.length);
    expect(expectSignedBy(pdf, "Acme Billing")).toContain("Signing Hash Algorithm: SHA-256");
    expect(poppler("pdftotext", pdf).out).toContain("Invoice 42");
  });

  test("a template's default signature signs its renders; the render's own replaces it", async () => {
    const templateCert = await uploadCertificate({ commonName: "Template Signer" });
    const ownCert = await uploadCertificate({ commonName: "Own Signer", key: "ec" });
    const template = await t.call("/v1/templates", { key, body: { name: "Signed", content: { type: "text", text: "Signed by default" }, signature: { certificateId: templateCert } } });
    expect(template.status).toBe(201);
    expect(template.body.draft.signature).toEqual({ certificateId: templateCert });
    expect((await t.call(`/v1/templates/${template.body.id}/publish`, { key, method: "POST" })).status).toBe(201);
    const byDefault = await t.call("/v1/renders?wait=30", { key, body: { templateId: template.body.id } });
    expect(byDefault.body.status).toBe("succeeded");
    expectSignedBy(await downloadPdf(byDefault.body.result.downloadUrl), "Template Signer");
    const own = await t.call("/v1/renders?wait=30", { key, body: { templateId: template.body.id, signature: { certificateId: ownCert } } });
    expect(own.body.status).toBe("succeeded");
    expectSignedBy(await downloadPdf(own.body.result.downloadUrl), "Own Signer");
  });

  test("an unknown, another workspace's or an expired certificate is refused when the render is created (422)", async () => {
    const other = await t.makeWorkspace("Other Co");
    const foreign = await uploadCertificate({}, await t.makeKey(other.id, ["certificate:manage"]));
    const shortLived = await uploadCertificate({ days: 1 });
    for (const certificateId of ["crt_unknown", foreign]) {
      const res = await t.call("/v1/renders", { key, body: { html: invoice, signature: { certificateId } } });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("ASSET_INVALID");
      expect(res.body.error.details).toEqual([{ path: "/signature/certificateId", message: expect.stringContaining("was not found") }]);
    }
    const batch = await t.call("/v1/renders/batch", { key, body: { items: [{ html: invoice }, { html: invoice, signature: { certificateId: "crt_unknown" } }] } });
    expect(batch.status).toBe(422);
    expect(batch.body.error.details[0].path).toBe("/items/1/signature/certificateId");
    const now = t.clock.now();
    t.clock.advance(2 * 24 * 3600 * 1000);
    try {
      const res = await t.call("/v1/renders", { key, body: { html: invoice, signature: { certificateId: shortLived } } });
      expect(res.status).toBe(422);
      expect(res.body.error.details[0].message).toContain("expired");
    } finally {
      t.clock.set(now);
    }
    const bad = await t.call("/v1/renders", { key, body: { html: invoice, signature: { certificateId: shortLived, visible: true } } });
    expect(bad.status).toBe(400);
  });

  test("a certificate deleted or expired before the PDF is signed fails the render RENDER_FAILED, with no PDF", async () => {
    const deletedCert = await uploadCertificate();
    const shortLived = await uploadCertificate({ days: 1 });
    const now = t.clock.now();
    await t.server.worker.stop();
    try {
      const deleted = (await t.call("/v1/renders", { key, body: { html: invoice, signature: { certificateId: deletedCert } } })).body;
      const expired = (await t.call("/v1/renders", { key, body: { html: invoice, signature: { certificateId: shortLived } } })).body;
      expect((await t.call(`/v1/certificates/${deletedCert}`, { key, method: "DELETE" })).status).toBe(200);
      t.clock.advance(2 * 24 * 3600 * 1000);
      await t.server.worker.start();
      const deletedEnd = await ended(deleted.id);
      expect(deletedEnd).toMatchObject({ status: "failed", error: { code: "RENDER_FAILED", message: expect.stringContaining(`${deletedCert} was deleted`) } });
      expect(deletedEnd.result).toBeUndefined();
      const expiredEnd = await ended(expired.id);
      expect(expiredEnd).toMatchObject({ status: "failed", error: { code: "RENDER_FAILED", message: expect.stringContaining("expired") } });
      expect(expiredEnd.result).toBeUndefined();
    } finally {
      t.clock.set(now);
      await t.server.worker.start();
    }
  });

  test("with SIGNATURE_TIMESTAMP_URL a signed render carries the authority's timestamp (B-T)", async () => {
    const tsa = startTsa();
    const stamped = await startTestServer({ SIGNATURE_TIMESTAMP_URL: tsa.url });
    try {
      stamped.clock.set(t.clock.now());
      const as = await stamped.makeKey(stamped.defaultWorkspaceId, ["certificate:manage", "render:create"]);
      const upload = await stamped.call("/v1/certificates", { key: as, body: { name: "Stamped", pkcs12: Buffer.from(makePkcs12({ commonName: "Stamped Signer" })).toString("base64"), password: "secret" } });
      const res = await stamped.call("/v1/renders?wait=30", { key: as, body: { html: invoice, signature: { certificateId: upload.body.id } } });
      expect(res.body.status).toBe("succeeded");
      const pdf = new Uint8Array(await (await fetch(local(stamped, res.body.result.downloadUrl))).arrayBuffer());
      expectSignedBy(pdf, "Stamped Signer");
      expect(tsa.requests()).toBe(1);
      // id-aa-signatureTimeStampToken as DER, in the hex of /Contents.
      expect(Buffer.from(pdf).toString("latin1").toLowerCase()).toContain("060b2a864886f70d010910020e");
    } finally {
      await stamped.stop();
      tsa.stop();
    }
  });
});

describe("password-protected renders (pdf.password)", () => {
  test("the stored PDF is AES-256 encrypted and opens with the user or owner password only", async () => {
    const res = await t.call("/v1/renders?wait=30", { key, body: { html: invoice, pdf: { password: { user: "open-me", owner: "own-me", permissions: { copy: false } } } } });
    expect(res.body.status).toBe("succeeded");
    const pdf = await downloadPdf(res.body.result.downloadUrl);
    expect(poppler("pdfinfo", pdf, ["-upw", "open-me"]).out).toMatch(/Encrypted:\s+yes \(print:yes copy:no .*algorithm:AES-256\)/);
    expect(poppler("pdftotext", pdf).exitCode).not.toBe(0);
    expect(poppler("pdftotext", pdf, ["-upw", "wrong"]).exitCode).not.toBe(0);
    expect(poppler("pdftotext", pdf, ["-upw", "open-me"]).out).toContain("Invoice 42");
    expect(poppler("pdftotext", pdf, ["-opw", "own-me"]).out).toContain("Invoice 42");
  });

  test("encrypted and signed: pdfsig finds the signature valid over the whole encrypted file", async () => {
    const certificateId = await uploadCertificate({ commonName: "Sealed Signer" });
    const res = await t.call("/v1/renders?wait=30", { key, body: { html: invoice, signature: { certificateId }, pdf: { password: { user: "open-me", owner: "own-me" } } } });
    expect(res.body.status).toBe("succeeded");
    const pdf = await downloadPdf(res.body.result.downloadUrl);
    expect(poppler("pdfinfo", pdf, ["-upw", "open-me"]).out).toMatch(/Encrypted:\s+yes/);
    const check = poppler("pdfsig", pdf, ["-upw", "open-me"]);
    expect(check.out).toContain("Signature is Valid.");
    expect(check.out).toContain("Sealed Signer");
    expect(check.out).toContain("Total document signed");
  });

  test("an owner password is required and permissions are print and copy only (400)", async () => {
    for (const password of [{ user: "open-me" }, { owner: "" }, { owner: "x", permissions: { modify: false } }]) {
      const res = await t.call("/v1/renders", { key, body: { html: invoice, pdf: { password } } });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].path).toStartWith("/pdf/password");
    }
  });
});
