/** Page images and PDF operations in the console (issue 30): the renders list shows each succeeded render's first page,
 * a render's page shows its pages, and the assets page fills an uploaded PDF form, follows the operation to its end
 * and offers its result; a refused option is shown with the field it names. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { PDFDocument } from "pdf-lib";
import { ADMIN, shoot, signIn, startRig, type Rig } from "./rig";

let rig: Rig;
let admin: Page;
let key: string;
let renderId: string;

async function call(path: string, body?: unknown, method = body === undefined ? "GET" : "POST"): Promise<any> {
  const res = await fetch(rig.url + path, { method, headers: { "x-api-key": key, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return res.json();
}

async function uploadPdf(name: string, bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  const asset = await call("/v1/assets", { kind: "pdf", filename: name, mediaType: "application/pdf", size: bytes.length, sha256 });
  const put = await fetch(rig.url + new URL(asset.uploadUrl).pathname + new URL(asset.uploadUrl).search, { method: "PUT", headers: asset.uploadHeaders, body: bytes });
  expect(put.status).toBe(200);
  return asset.id;
}

beforeAll(async () => {
  rig = await startRig();
  key = (rig.cli("keys", "create", "--workspace", "default", "--name", "console", "--scope", "render:create,render:read,asset:manage") as { secret: string }).secret;
  const render = await call("/v1/renders?wait=30", { html: "<h1>Quarterly report</h1><h1 style='break-before:page'>Second page</h1>" });
  expect(render.status).toBe("succeeded");
  renderId = render.id;
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  doc.getForm().createTextField("name").addToPage(page, { x: 50, y: 700, width: 200, height: 24 });
  await uploadPdf("form.pdf", new Uint8Array(await doc.save()));
  admin = await rig.page();
  await signIn(admin, ADMIN.email, ADMIN.password);
});
afterAll(async () => {
  await rig?.stop();
});

/** loaded tells whether every image the locator finds has been drawn by the browser (decoded, not broken). */
const loaded = (page: Page, selector: string) =>
  page.waitForFunction((s) => {
    const images = Array.from(document.querySelectorAll<HTMLImageElement>(s));
    return images.length > 0 && images.every((i) => i.complete && i.naturalWidth > 0);
  }, selector);

test("the renders list shows each render's first page; a render's page shows its pages", async () => {
  await admin.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Renders" }).click();
  await admin.getByRole("img", { name: /First page of/ }).first().waitFor();
  await loaded(admin, "img.thumbnail");
  expect(await admin.locator("img.thumbnail").first().evaluate((i: HTMLImageElement) => i.naturalWidth)).toBe(96);
  await admin.getByRole("link", { name: renderId }).click();
  const pages = admin.getByRole("region", { name: "Pages" });
  await pages.getByRole("img", { name: "Page 2" }).waitFor();
  await loaded(admin, ".pages img");
  expect(await pages.getByRole("img").count()).toBe(2);
  await shoot(admin, "render-pages");
});

test("the assets page fills an uploaded PDF form and offers the result; a refused option names its field", async () => {
  await admin.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Assets" }).click();
  await admin.getByRole("row", { name: /form\.pdf/ }).getByRole("button", { name: "Operations" }).click();
  const form = admin.getByRole("form", { name: "PDF operation" });
  await form.getByLabel("Operation", { exact: true }).selectOption("fill");
  await form.getByLabel("name").fill("Ada Lovelace");
  await form.getByRole("button", { name: "Run fill" }).click();
  const status = form.getByRole("status", { name: "Operation status" });
  await status.getByText("succeeded").waitFor();
  const link = status.getByRole("button", { name: /Download result/ });
  const bytes = await admin.evaluate(async (href) => new Uint8Array(await (await fetch(href)).arrayBuffer()).length, (await link.getAttribute("href"))!);
  expect(bytes).toBeGreaterThan(500);
  await shoot(admin, "asset-operation-filled");

  await form.getByLabel("Operation", { exact: true }).selectOption("rotate");
  await form.getByLabel(/^Pages/).fill("7");
  await form.getByRole("button", { name: "Run rotate" }).click();
  await form.getByRole("alert").getByText("/pages/0").waitFor();
});
