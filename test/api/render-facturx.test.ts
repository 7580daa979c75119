/** Factur-X / ZUGFeRD through the API (issue 13, docs/pdf.md "Factur-X"): an XML asset (kind pdf, text/xml) embedded
 * as factur-x.xml in a PDF/A-3b render gives the file its /AF entry with AFRelationship, the Factur-X XMP extension
 * schema and fx: facts; the XML comes out byte for byte. veraPDF is not installed here: the PDF/A and Factur-X
 * validation proper is not run, only the markers poppler and pdf-lib read. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFStream } from "pdf-lib";
import { local, PDF, put, registration, uploadSample, XML } from "../fixtures/assets";
import { startTestServer, type TestServer } from "../harness";
import { poppler } from "../render/poppler";

let t: TestServer;
let key: string;
let xml: string;
let appXml: string;
let terms: string;

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1" });
  key = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read", "asset:manage", "template:write"]);
  xml = (await uploadSample(t, key, { kind: "pdf", mediaType: "text/xml", filename: "factur-x.xml", bytes: XML })).id;
  appXml = (await uploadSample(t, key, { kind: "pdf", mediaType: "application/xml", filename: "invoice.xml", bytes: XML })).id;
  terms = (await uploadSample(t, key, { kind: "pdf", mediaType: "application/pdf", filename: "terms.pdf", bytes: PDF })).id;
});
afterAll(() => t.stop());

// Renders are allowed 60 a minute on the manual clock: every test starts in a fresh minute.
beforeEach(() => t.clock.advance(61_000));

const HTML = "<h1>Invoice 2026-0042</h1><p>Total: 100 EUR</p>";

async function render(pdf: Record<string, unknown>): Promise<Uint8Array> {
  const res = await t.call("/v1/renders?wait=60", { key, body: { html: HTML, pdf } });
  expect(res.body.status).toBe("succeeded");
  return new Uint8Array(await (await fetch(local(t, res.body.result.downloadUrl))).arrayBuffer());
}

/** detached answers the bytes pdfdetach saves of embedded file number `n`. */
function detached(pdf: Uint8Array, n: number): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "renderd-detach-"));
  try {
    const out = join(dir, "saved");
    poppler(pdf, (f) => ["pdfdetach", "-save", String(n), "-o", out, f]);
    return new Uint8Array(readFileSync(out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("Factur-X", () => {
  test("PDF/A-3b with factur-x.xml: the XML byte for byte, /AF with /Alternative, the fx: XMP and pdfaid part 3", async () => {
    const pdf = await render({ standard: "PDF/A-3b", embeddedFiles: [{ assetId: xml, name: "factur-x.xml", relationship: "Alternative" }] });
    expect(poppler(pdf, (f) => ["pdfdetach", "-list", f])).toContain("1: factur-x.xml");
    expect(Buffer.from(detached(pdf, 1)).equals(Buffer.from(XML))).toBe(true);

    const meta = poppler(pdf, (f) => ["pdfinfo", "-meta", f]);
    expect(meta).toContain("<pdfaid:part>3</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance>");
    expect(meta).toContain("<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI><pdfaSchema:prefix>fx</pdfaSchema:prefix>");
    for (const property of ["DocumentFileName", "DocumentType", "Version", "ConformanceLevel"]) expect(meta).toContain(`<pdfaProperty:name>${property}</pdfaProperty:name>`);
    expect(meta).toContain(
      "<fx:DocumentType>INVOICE</fx:DocumentType><fx:DocumentFileName>factur-x.xml</fx:DocumentFileName><fx:Version>1.0</fx:Version><fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>",
    );

    const doc = await PDFDocument.load(pdf, { updateMetadata: false });
    const af = doc.catalog.lookup(PDFName.of("AF"), PDFArray);
    expect(af.size()).toBe(1);
    const spec = af.lookup(0, PDFDict);
    expect(spec.get(PDFName.of("AFRelationship"))).toBe(PDFName.of("Alternative"));
    const file = spec.lookup(PDFName.of("EF"), PDFDict).lookup(PDFName.of("F"), PDFStream);
    expect(file.dict.get(PDFName.of("Subtype"))?.toString()).toBe("/text#2Fxml");
  });

  test("facturX.conformanceLevel states the XML's profile; an application/xml asset is embedded as well", async () => {
    const pdf = await render({ standard: "PDF/A-3b", facturX: { conformanceLevel: "BASIC WL" }, embeddedFiles: [{ assetId: appXml, name: "factur-x.xml", relationship: "Data" }] });
    expect(poppler(pdf, (f) => ["pdfinfo", "-meta", f])).toContain("<fx:ConformanceLevel>BASIC WL</fx:ConformanceLevel>");
    expect(Buffer.from(detached(pdf, 1)).equals(Buffer.from(XML))).toBe(true);
  });

  test("without PDF/A-3b, or under another name, the XML is an embedded file and the XMP has no fx:", async () => {
    const pdf = await render({ standard: "PDF/A-3b", embeddedFiles: [{ assetId: xml, name: "invoice.xml" }] });
    expect(poppler(pdf, (f) => ["pdfdetach", "-list", f])).toContain("1: invoice.xml");
    expect(poppler(pdf, (f) => ["pdfinfo", "-meta", f])).not.toContain("fx:");
  });
});

describe("Factur-X and XML assets: 4xx", () => {
  async function refused(pdf: Record<string, unknown>, status: number, code: string, path: string): Promise<void> {
    const res = await t.call("/v1/renders", { key, body: { html: HTML, pdf } });
    expect([res.status, res.body.error?.code]).toEqual([status, code]);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  }

  test("facturX without a PDF/A-3b factur-x.xml, a forbidden relationship or a PDF as factur-x.xml is refused", async () => {
    await refused({ facturX: { conformanceLevel: "BASIC" }, embeddedFiles: [{ assetId: xml, name: "factur-x.xml" }] }, 400, "BAD_REQUEST", "/pdf/facturX");
    await refused({ standard: "PDF/A-3b", facturX: { conformanceLevel: "XRECHNUNG" }, embeddedFiles: [{ assetId: xml, name: "factur-x.xml" }] }, 400, "BAD_REQUEST", "/pdf/facturX/conformanceLevel");
    await refused({ standard: "PDF/A-3b", embeddedFiles: [{ assetId: terms, name: "terms.pdf" }, { assetId: xml, name: "factur-x.xml", relationship: "Supplement" }] }, 400, "BAD_REQUEST", "/pdf/embeddedFiles/1/relationship");
    await refused({ standard: "PDF/A-3b", embeddedFiles: [{ assetId: terms, name: "factur-x.xml" }] }, 422, "ASSET_INVALID", "/pdf/embeddedFiles/0/assetId");
  });

  test("an XML asset cannot be appended, by a render or a template (422)", async () => {
    await refused({ attachAssetIds: [terms, xml] }, 422, "ASSET_INVALID", "/pdf/attachAssetIds/1");
    const template = await t.call("/v1/templates", { key, body: { name: "Appends XML", content: { type: "text", text: "x" }, pdf: { attachAssetIds: [xml] } } });
    expect(template.status).toBe(422);
    expect(template.body.error.details).toEqual([{ path: "/pdf/attachAssetIds/0", message: expect.stringContaining("is text/xml") }]);
  });

  test("XML goes under the kind pdf only, and must look like XML", async () => {
    const register = (kind: string, mediaType: string, bytes: Uint8Array<ArrayBuffer>) => t.call("/v1/assets", { key, body: registration({ kind, mediaType, filename: "factur-x.xml", bytes }) });
    const wrongKind = await register("stylesheet", "text/xml", XML);
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.error.details[0]).toEqual({ path: "/mediaType", message: expect.stringContaining("text/css") });
    const csv = new TextEncoder().encode("number;total\n42;100\n");
    const created = await register("pdf", "text/xml", csv);
    expect(created.status).toBe(201);
    const upload = await put(t, created.body.uploadUrl, csv, created.body.uploadHeaders);
    expect(upload.status).toBe(422);
    expect(upload.body.error.details[0]).toEqual({ path: "/mediaType", message: expect.stringContaining("is not an XML document") });
  });
});
