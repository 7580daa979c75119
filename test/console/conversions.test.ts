/** Templates from a PDF through the console (issue 14, docs/conversions.md): a rendered invoice is uploaded on the
 * Templates page, converted, and opens in the editor with the values found as its sample data and a preview; an
 * image-only PDF fails with the conversion's error; over the allowance the API's 429 message shows. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { PDFDocument } from "pdf-lib";
import { PNG } from "../fixtures/assets";
import { INVOICE_DATA, INVOICE_TEMPLATE } from "../fixtures/invoice";
import { ADMIN, copyCode, DESKTOP, horizontalOverflow, PHONE, shoot, signIn, startRig, type Rig } from "./rig";

let rig: Rig;
let page: Page;

beforeAll(async () => {
  rig = await startRig();
  page = await rig.page();
  await signIn(page, ADMIN.email, ADMIN.password);
});
afterAll(() => rig?.stop());

/** renderedInvoice renders the invoice fixture through the API with the console's session, as a customer's PDF. */
async function renderedInvoice(): Promise<Buffer> {
  const base64 = await page.evaluate(
    async ({ template, data }) => {
      const call = async (path: string, body?: unknown) => {
        const res = await fetch(path, { method: body ? "POST" : "GET", headers: { "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
        if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        return res;
      };
      const created = await (await call("/v1/templates", template)).json();
      await call(`/v1/templates/${created.id}/publish`, {});
      const render = await (await call("/v1/renders?wait=30", { templateId: created.id, data })).json();
      const bytes = new Uint8Array(await (await fetch(render.result.downloadUrl)).arrayBuffer());
      let text = "";
      for (const b of bytes) text += String.fromCharCode(b);
      return btoa(text);
    },
    { template: INVOICE_TEMPLATE, data: INVOICE_DATA },
  );
  return Buffer.from(base64, "base64");
}

/** scanned makes a one-page PDF that is only a picture, as a scanner makes (as test/api/template-conversions.test.ts). */
async function scanned(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawImage(await doc.embedPng(PNG), { x: 0, y: 0, width: 595, height: 842 });
  return Buffer.from(await doc.save());
}

/** uploadAndConvert uploads a PDF through the *New from a PDF* form and starts its conversion. */
async function uploadAndConvert(name: string, buffer: Buffer): Promise<void> {
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Templates" }).click();
  const form = page.getByRole("form", { name: "New from a PDF" });
  await form.getByLabel("Or upload a PDF").setInputFiles({ name, mimeType: "application/pdf", buffer });
  await form.getByRole("status").filter({ hasText: `Uploaded ${name}.` }).waitFor();
  // "Uploaded" is drawn from the upload's state and the select takes the asset in its onSuccess: two renders, which need
  // not land together. Wait for the select to show the file (an option in a closed select is never "visible").
  await form.getByLabel("PDF asset").locator("option:checked", { hasText: name }).waitFor({ state: "attached" });
  expect(await form.getByLabel("PDF asset").inputValue()).toMatch(/^ast_/);
  await form.getByRole("button", { name: "Convert to a template" }).click();
}

test("a rendered invoice uploaded and converted opens in the editor with its values as sample data, and previews", async () => {
  await uploadAndConvert("northwind-invoice.pdf", await renderedInvoice());
  await page.getByRole("heading", { level: 1, name: "northwind-invoice" }).waitFor({ timeout: 30_000 });
  expect(new URL(page.url()).searchParams.get("conversion")).toMatch(/^tcv_/);
  await page.getByRole("note").filter({ hasText: "Made from a PDF" }).waitFor();
  const sample = JSON.parse(await copyCode(page, page.getByRole("textbox", { name: "Sample data" })));
  expect(sample).toMatchObject({ invoiceNumber: "INV-2026-0042", totalDue: "$2,283.50" });
  expect(sample.items).toHaveLength(3);
  // The draft's preview with the sample data is the invoice again.
  const preview = page.getByRole("region", { name: "PDF preview" });
  await preview.getByText("INV-2026-0042").first().waitFor({ timeout: 30_000 });
  await preview.getByText("Consulting hours").first().waitFor();
  await preview.getByText("$2,283.50").first().waitFor();
  await shoot(page, "template-from-pdf");

  await page.getByRole("link", { name: "← Templates" }).click();
  const row = page.getByRole("region", { name: "Recent conversions" }).getByRole("row").filter({ hasText: "northwind-invoice.pdf" });
  await row.filter({ hasText: "succeeded" }).waitFor();
  await row.getByRole("link", { name: "Open template" }).click();
  await page.getByRole("heading", { level: 1, name: "northwind-invoice" }).waitFor();
  expect(JSON.parse(await copyCode(page, page.getByRole("textbox", { name: "Sample data" })))).toEqual(sample);
});

test("an image-only PDF fails, and the conversion's error shows as written", async () => {
  await uploadAndConvert("scan.pdf", await scanned());
  const form = page.getByRole("form", { name: "New from a PDF" });
  const alert = form.getByRole("alert").filter({ hasText: "The conversion failed" });
  await alert.waitFor({ timeout: 30_000 });
  const conversions = await page.evaluate(async () => (await (await fetch("/v1/template-conversions")).json()).items);
  const failed = conversions.find((c: { status: string }) => c.status === "failed");
  expect(failed.error).toContain("images only");
  expect(await alert.textContent()).toBe(`The conversion failed: ${failed.error}`);
  const row = page.getByRole("region", { name: "Recent conversions" }).getByRole("row").filter({ hasText: "scan.pdf" });
  await row.filter({ hasText: "failed" }).waitFor();
  expect(await row.textContent()).toContain(failed.error);
  await shoot(page, "template-from-pdf-failed");
  await page.setViewportSize(PHONE);
  expect(await horizontalOverflow(page)).toBe(0);
  await shoot(page, "template-from-pdf-failed-phone");
  await page.setViewportSize(DESKTOP);
});

test("over templateConversionsPerMonth the API's message shows; Limits shows the conversions against it", async () => {
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Limits" }).click();
  await page.getByText("2 template conversions this month (no limit)").waitFor();
  const allowances = page.getByRole("form", { name: /^Allowances of / });
  await allowances.getByLabel("Template conversions per month").fill("2");
  await allowances.getByRole("button", { name: "Save allowances" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Save" }).click();
  await allowances.getByRole("status").filter({ hasText: "Allowances saved." }).waitFor();

  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Templates" }).click();
  const form = page.getByRole("form", { name: "New from a PDF" });
  const invoice = await form.locator("option", { hasText: "northwind-invoice.pdf" }).getAttribute("value");
  await form.getByLabel("PDF asset").selectOption(invoice!);
  await form.getByRole("button", { name: "Convert to a template" }).click();
  const alert = form.getByRole("alert").filter({ hasText: "converted 2 of its 2 PDFs this month" });
  await alert.waitFor();
  expect(await alert.textContent()).toContain("raise templateConversionsPerMonth");
  await shoot(page, "template-from-pdf-quota");

  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Limits" }).click();
  await page.getByText("2 of 2 template conversions this month").waitFor();
});
