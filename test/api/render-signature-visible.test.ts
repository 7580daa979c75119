/** Visible signatures and the checks around signing over HTTP (issue 13): `signature.visible` draws a box where asked,
 * from a render and from a template's default, also in an encrypted file; a template naming a certificate its
 * workspace cannot sign with is refused when saved and published; RENDER_MAX_OUTPUT_BYTES holds for the signed file. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { local } from "../fixtures/assets";
import { startTestServer, type TestServer } from "../harness";
import { inkIn, textIn } from "../pdf/appearance";
import { makePkcs12, poppler } from "../pdf/certs";

let t: TestServer;
let key: string;
let certificateId: string;

const invoice = "<h1>Invoice 42</h1><p>Total: 100 EUR</p>";
// Low on the A4 page (595 × 842 pt), clear of the invoice's text.
const box = { page: 1, x: 320, y: 700, width: 240, height: 64 };

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1" });
  // openssl makes certificates valid from the moment they are made: ten minutes ahead, the server's clock is past
  // the start of every certificate this file makes.
  t.clock.set(new Date(Date.now() + 10 * 60_000));
  key = await t.makeKey(t.defaultWorkspaceId, ["certificate:manage", "render:create", "render:read", "template:write", "template:publish"]);
  certificateId = await uploadCertificate("Visible Signer", key);
});
afterAll(() => t.stop());

// Renders are allowed 60 a minute on the manual clock: every test starts in a fresh minute.
beforeEach(() => t.clock.advance(61_000));

async function uploadCertificate(commonName: string, as: string): Promise<string> {
  const res = await t.call("/v1/certificates", { key: as, body: { name: "Signing", pkcs12: Buffer.from(makePkcs12({ commonName })).toString("base64"), password: "secret" } });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function renderedPdf(body: object): Promise<Uint8Array> {
  const res = await t.call("/v1/renders?wait=30", { key, body });
  expect(res.body.status).toBe("succeeded");
  const download = await fetch(local(t, res.body.result.downloadUrl));
  return new Uint8Array(await download.arrayBuffer());
}

function expectVisiblySigned(pdf: Uint8Array, password?: string): string {
  const check = poppler("pdfsig", pdf, password ? ["-upw", password] : []);
  expect(check.out).toContain("Signature Validation: Signature is Valid.");
  expect(check.out).toContain("Signer Certificate Common Name: Visible Signer");
  expect(check.out).toContain("Total document signed");
  expect(inkIn(pdf, box, password)).toBeGreaterThan(0.01);
  const text = textIn(pdf, box, password);
  expect(text).toContain("Digitally signed by Visible Signer");
  expect(text).toContain(`Date: ${t.clock.now().toISOString().slice(0, 10)}`);
  return text;
}

describe("visible signatures", () => {
  test("a render's box shows signer, date, reason and location where asked; the area is blank without it", async () => {
    expect(inkIn(await renderedPdf({ html: invoice, signature: { certificateId } }), box)).toBe(0);
    const pdf = await renderedPdf({ html: invoice, signature: { certificateId, reason: "Invoice issued", location: "Berlin", visible: box } });
    const text = expectVisiblySigned(pdf);
    expect(text).toContain("Reason: Invoice issued");
    expect(text).toContain("Location: Berlin");
    expect(poppler("pdftotext", pdf).out).toContain("Invoice 42");
  });

  test("a template's default signature draws its box on the template's renders", async () => {
    const signature = { certificateId, reason: "Contract", visible: box };
    const template = await t.call("/v1/templates", { key, body: { name: "Visibly signed", content: { type: "text", text: "Signed by default" }, signature } });
    expect(template.status).toBe(201);
    expect(template.body.draft.signature).toEqual(signature);
    expect((await t.call(`/v1/templates/${template.body.id}/publish`, { key, method: "POST" })).status).toBe(201);
    expect(expectVisiblySigned(await renderedPdf({ templateId: template.body.id }))).toContain("Reason: Contract");
  });

  test("encrypted, then signed: the box is in the encrypted file and the signature is valid", async () => {
    const pdf = await renderedPdf({ html: invoice, signature: { certificateId, visible: box }, pdf: { password: { user: "open-me", owner: "own-me" } } });
    expect(poppler("pdftotext", pdf).exitCode).not.toBe(0);
    expectVisiblySigned(pdf, "open-me");
  });

  test("a PDF/A-3b render keeps every font embedded with the box drawn (its font is embedded too)", async () => {
    const pdf = await renderedPdf({ html: invoice, pdf: { standard: "PDF/A-3b" }, signature: { certificateId, visible: box } });
    expectVisiblySigned(pdf);
    expect(poppler("pdfinfo", pdf, ["-meta"]).out).toContain("<pdfaid:part>3</pdfaid:part>");
    const fonts = poppler("pdffonts", pdf).out.trim().split("\n").slice(2);
    expect(fonts.some((line) => line.includes("+LiberationSans "))).toBe(true);
    // The columns after the encoding are emb, sub, uni, object number, generation.
    for (const line of fonts) expect(line).toMatch(/\syes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+$/);
  });

  test("a page the PDF lacks fails the render naming /signature/visible/page; a malformed box is 400", async () => {
    const res = await t.call("/v1/renders?wait=30", { key, body: { html: invoice, signature: { certificateId, visible: { ...box, page: 3 } } } });
    // A render that fails while ?wait is waiting answers the failure itself.
    expect(res.body.error).toMatchObject({ code: "RENDER_FAILED", message: expect.stringContaining("The signature box cannot be drawn: signature.visible.page (/signature/visible/page) is 3, but the PDF has 1 pages") });
    const outside = await t.call("/v1/renders?wait=30", { key, body: { html: invoice, signature: { certificateId, visible: { ...box, y: 800 } } } });
    expect(outside.body.error.message).toContain("outside page 1");
    for (const [visible, path] of [
      [{ ...box, page: 0 }, "/signature/visible/page"],
      [{ ...box, width: 0 }, "/signature/visible/width"],
      [{ page: 1, x: 0, y: 0 }, "/signature/visible/width"],
    ] as const) {
      const bad = await t.call("/v1/renders", { key, body: { html: invoice, signature: { certificateId, visible } } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });
});

describe("a template's default certificate", () => {
  test("is refused at create, update and publish when the workspace cannot sign with it (422 at /signature/certificateId)", async () => {
    const other = await t.makeWorkspace("Other Signers");
    const foreign = await uploadCertificate("Foreign Signer", await t.makeKey(other.id, ["certificate:manage"]));
    const content = { type: "text", text: "Signed" };
    for (const id of ["crt_unknown", foreign]) {
      const created = await t.call("/v1/templates", { key, body: { name: "Bad signer", content, signature: { certificateId: id } } });
      expect(created.status).toBe(422);
      expect(created.body.error.code).toBe("TEMPLATE_INVALID");
      expect(created.body.error.details).toEqual([{ path: "/signature/certificateId", message: expect.stringContaining("was not found") }]);
    }
    const doomed = await uploadCertificate("Doomed Signer", key);
    const template = await t.call("/v1/templates", { key, body: { name: "Signer deleted later", content, signature: { certificateId: doomed } } });
    expect(template.status).toBe(201);
    const patched = await t.call(`/v1/templates/${template.body.id}`, { key, method: "PATCH", body: { signature: { certificateId: foreign } } });
    expect(patched.status).toBe(422);
    expect(patched.body.error.details[0].path).toBe("/signature/certificateId");
    expect((await t.call(`/v1/certificates/${doomed}`, { key, method: "DELETE" })).status).toBe(200);
    const published = await t.call(`/v1/templates/${template.body.id}/publish`, { key, method: "POST" });
    expect(published.status).toBe(422);
    expect(published.body.error.details).toEqual([{ path: "/signature/certificateId", message: expect.stringContaining(`${doomed} was not found`) }]);
    // Removing the default (null) makes the template usable again.
    expect((await t.call(`/v1/templates/${template.body.id}`, { key, method: "PATCH", body: { signature: null } })).status).toBe(200);
    expect((await t.call(`/v1/templates/${template.body.id}/publish`, { key, method: "POST" })).status).toBe(201);
  });
});

describe("RENDER_MAX_OUTPUT_BYTES", () => {
  test("holds for the signed file: a PDF that fits unsigned fails LIMIT_EXCEEDED once the signature is added", async () => {
    const unsigned = await renderedPdf({ html: invoice });
    // Room for the unsigned PDF, not for the ~25 kB the signature adds.
    const limited = await startTestServer({ RENDER_WORKERS: "1", RENDER_MAX_OUTPUT_BYTES: String(unsigned.length + 2_000) });
    try {
      limited.clock.set(t.clock.now());
      const as = await limited.makeKey(limited.defaultWorkspaceId, ["certificate:manage", "render:create", "render:read"]);
      const upload = await limited.call("/v1/certificates", { key: as, body: { name: "Big", pkcs12: Buffer.from(makePkcs12()).toString("base64"), password: "secret" } });
      expect((await limited.call("/v1/renders?wait=30", { key: as, body: { html: invoice } })).body.status).toBe("succeeded");
      const signed = await limited.call("/v1/renders?wait=30", { key: as, body: { html: invoice, signature: { certificateId: upload.body.id } } });
      expect(signed.status).toBe(413);
      expect(signed.body.error).toMatchObject({ code: "LIMIT_EXCEEDED", message: expect.stringContaining("The signed PDF has") });
      const stored = await limited.call(`/v1/renders/${signed.body.error.renderId}`, { key: as });
      expect(stored.body).toMatchObject({ status: "failed", error: { code: "LIMIT_EXCEEDED" } });
      expect(stored.body.result).toBeUndefined();
    } finally {
      await limited.stop();
    }
  });
});
