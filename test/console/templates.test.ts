/** Templates, renders and assets through the console: an invalid node is marked where it is and the preview follows
 * the fix; a test render appears in Renders and its PDF downloads; an upload shows its progress and lands. (The
 * designer itself is test/console/designer.test.ts.) */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { ADMIN, DESKTOP, horizontalOverflow, PHONE, shoot, signIn, startRig, typeCode, type Rig } from "./rig";

let rig: Rig;
let page: Page;
let templatePath: string;

beforeAll(async () => {
  rig = await startRig();
  page = await rig.page();
  await signIn(page, ADMIN.email, ADMIN.password);
});
afterAll(() => rig?.stop());

/** fitsPhone checks the page at 390×844 (no sideways scrolling) and saves it, then goes back to the desktop size. */
async function fitsPhone(name: string): Promise<void> {
  await page.setViewportSize(PHONE);
  expect({ name, overflow: await horizontalOverflow(page) }).toEqual({ name, overflow: 0 });
  await shoot(page, `${name}-phone`);
  await page.setViewportSize(DESKTOP);
}

/** typeDraft replaces the draft in the JSON tab's editor, as a user would by selecting all and pasting. */
async function typeDraft(draft: unknown): Promise<void> {
  await page.getByRole("tab", { name: "JSON" }).click();
  await typeCode(page, page.getByRole("textbox", { name: "Draft JSON" }), JSON.stringify(draft, null, 2));
}

test("a template from a starter; an invalid node is marked at its field, and the preview follows the fix", async () => {
  await page.getByRole("link", { name: "Templates" }).click();
  await page.getByText("No templates yet").waitFor();
  const form = page.getByRole("form", { name: "New template" });
  // The starters are the API's, with their descriptions.
  await form.getByRole("radio", { name: "Invoice" }).check();
  await form.getByText(/^An invoice: seller and customer/).waitFor();
  await form.getByLabel("Template name").fill("Monthly invoice");
  await form.getByRole("button", { name: "Create template" }).click();
  await page.getByRole("heading", { level: 1, name: "Monthly invoice" }).waitFor();
  templatePath = new URL(page.url()).pathname;
  const preview = page.getByRole("region", { name: "PDF preview" });
  // The preview prints the starter's own sample data, computed totals included.
  await preview.getByText("Northwind Studio GmbH").first().waitFor({ timeout: 30_000 });
  await preview.getByText("€6,235.60").waitFor();

  await typeDraft({ content: { type: "container", children: [{ type: "text", text: "Hello" }, { type: "text", txt: "Broken" }] } });
  await page.getByRole("button", { name: "Save draft" }).click();
  const marked = page.locator(".cm-lintRange-error");
  await marked.first().waitFor();
  // CodeMirror splits a marked range at its syntax tokens; together they cover the field at fault.
  expect((await marked.allTextContents()).join("")).toContain('"txt": "Broken"');
  await page.getByRole("alert").filter({ hasText: "/content/children/1/txt" }).waitFor();
  await shoot(page, "template-invalid-node");
  // Nothing was saved, and the preview still shows the last draft that printed.
  await preview.getByText("€6,235.60").waitFor();

  await typeDraft({ content: { type: "container", children: [{ type: "text", text: "Hello" }, { type: "text", text: "Fixed heading" }] } });
  await preview.getByText("Fixed heading").waitFor({ timeout: 30_000 });
  expect(await marked.count()).toBe(0);
  await page.getByRole("button", { name: "Save draft" }).click();
  await page.getByRole("status").filter({ hasText: "All changes saved" }).waitFor();
  await shoot(page, "template-editor");
  await fitsPhone("template-editor");
});

test("a test render appears in Renders and its PDF downloads", async () => {
  await page.goto(templatePath);
  await page.getByRole("button", { name: "Test render" }).click();
  await page.getByRole("link", { name: /^open render / }).click();
  await page.getByText("succeeded", { exact: true }).waitFor({ timeout: 30_000 });
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download PDF" }).click()]);
  expect(readFileSync(await download.path()).subarray(0, 5).toString()).toBe("%PDF-");
  await shoot(page, "render");
  await fitsPhone("render");

  await page.getByRole("link", { name: "Renders", exact: true }).first().click();
  await page.getByLabel("Test renders").selectOption("true");
  const row = page.getByRole("row").filter({ hasText: "succeeded" });
  await row.first().waitFor();
  expect(await row.first().textContent()).toContain("test");
});

test("Usage counts the renders on their day — the test render and the previews, which are test renders — and downloads the table as CSV", async () => {
  await page.getByRole("link", { name: "Usage" }).click();
  const today = new Date().toISOString().slice(0, 10);
  await page.getByRole("cell", { name: today }).waitFor();
  const renders: { status: string; result?: { pages: number } }[] = await page.evaluate(async () => (await (await fetch("/v1/renders?limit=100")).json()).items);
  const succeeded = renders.filter((r) => r.status === "succeeded");
  expect(succeeded.length).toBeGreaterThan(1);
  const pages = succeeded.reduce((n, r) => n + r.result!.pages, 0);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()]);
  const csv = readFileSync(await download.path(), "utf8").trim().split("\n");
  expect(csv[0]).toBe("day,rendersSucceeded,rendersFailed,rendersCancelled,pages,outputBytes");
  expect(csv.find((line) => line.startsWith(today))).toMatch(new RegExp(`^${today},${succeeded.length},0,0,${pages},\\d+$`));
});

test("an upload shows its progress and lands in the list", async () => {
  await page.getByRole("link", { name: "Assets" }).click();
  await page.getByText("No assets yet").waitFor();
  const css = Buffer.from("body { color: #333; }\n".repeat(100_000));
  await page.getByLabel("File to upload").setInputFiles({ name: "brand.css", mimeType: "text/css", buffer: css });
  const progress = page.getByLabel("Upload progress");
  await progress.waitFor();
  await page.getByRole("status").filter({ hasText: "Uploaded brand.css" }).waitFor();
  expect(await progress.getAttribute("value")).toBe("100");
  await page.getByRole("cell", { name: "brand.css", exact: true }).waitFor();
  await page.getByLabel("Kind").selectOption("stylesheet");
  await page.getByRole("cell", { name: "brand.css", exact: true }).waitFor();
  await shoot(page, "assets-uploaded");
});

test("deleting a template asks first, then it leaves the list — its unsaved edits asked about no more", async () => {
  await page.goto(templatePath);
  await typeDraft({ content: { type: "text", text: "Never saved" } });
  await page.getByRole("status").filter({ hasText: "Unsaved changes" }).waitFor();
  await page.getByRole("button", { name: "Delete template" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByText("No templates yet").waitFor();
});
