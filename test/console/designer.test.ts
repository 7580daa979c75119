/** The template designer (issue 29) through a real browser against the built binary: starters as thumbnails of their
 * PDFs; the invoice starter's outline; a title changed in Design showing in the real PDF preview (its pixels and its
 * text) before any save, and in the JSON tab; a table bound to `lines` added by pointing, undone and redone; nodes
 * moved, dragged and deleted; an image uploaded from the designer in the preview; a problem shown beside its node and
 * field; sample data kept across a reload, generated from the schema, a schema inferred from it; the question
 * before unsaved edits are lost; and a save over a draft changed elsewhere meanwhile. One server, one browser. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { pngOf } from "../fixtures/assets";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ADMIN, copyCode, DESKTOP, SCREENSHOTS, shoot, signIn, startRig, typeCode, type Rig } from "./rig";

let rig: Rig;
let page: Page;
let invoicePath: string;
const problems: string[] = [];

beforeAll(async () => {
  rig = await startRig();
  page = await rig.page();
  // The designer must keep to the console's Content-Security-Policy: nothing off-origin, no eval.
  page.on("console", (m) => m.type() === "error" && /Content Security Policy|Refused/.test(m.text()) && problems.push(m.text()));
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("request", (r) => !/^(http:\/\/127\.0\.0\.1:\d+\/|blob:|data:|about:)/.test(r.url()) && problems.push(`request to ${r.url()}`));
  await signIn(page, ADMIN.email, ADMIN.password);
});
afterAll(() => rig?.stop());

// A preview is a test render: the workspace may print 10 a minute, and past that the preview waits out the minute.
const PREVIEW_MS = 70_000;

const preview = () => page.getByRole("region", { name: "PDF preview" });
const outline = () => page.getByRole("tree", { name: "Document outline" });
const properties = () => page.getByRole("form", { name: "Node properties" });
const item = (name: string) => outline().getByRole("treeitem", { name, exact: true });
/** root is the content's root node, the outline's first item. */
const root = () => outline().getByRole("treeitem").first();
const nav = (name: string) => page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true });

/** pixels answers the first preview page's canvas as a data URL, or "" before one is drawn. */
function pixels(): Promise<string> {
  return preview().evaluate((region) => region.querySelector("canvas")?.toDataURL() ?? "");
}

/** newPixels waits for the preview's first page to be drawn anew. */
async function newPixels(before: string): Promise<void> {
  await page.waitForFunction(
    (old) => {
      const canvas = document.querySelector<HTMLCanvasElement>('[aria-label="PDF preview"] canvas');
      return canvas !== null && canvas.toDataURL() !== old;
    },
    before,
    { timeout: PREVIEW_MS, polling: 50 },
  );
}

/** names lists the outline's treeitems in order. */
function names(): Promise<string[]> {
  return outline()
    .getByRole("treeitem")
    .evaluateAll((items) => items.map((i) => i.getAttribute("aria-label") ?? ""));
}

const typeInto = (editor: Locator, text: string) => typeCode(page, editor, text);
const copyAll = (editor: Locator) => copyCode(page, editor);

test("New template shows each of the API's starters as a thumbnail of its PDF; the invoice opens as text Invoice … table lines", async () => {
  await nav("Templates").click();
  const form = page.getByRole("form", { name: "New template" });
  const starters = form.getByRole("group", { name: "Starter" });
  // The starters come from the API after the page: evaluateAll does not wait for them.
  await starters.waitFor();
  expect(await starters.getByRole("radio").evaluateAll((r) => r.map((e) => (e as HTMLInputElement).value))).toEqual(["invoice", "receipt", "letter", "report", "certificate", "blank"]);
  for (const name of ["Invoice", "Receipt", "Letter", "Report", "Certificate"]) {
    const thumbnail = starters.getByRole("img", { name: `The ${name} starter's first page` });
    await thumbnail.waitFor({ timeout: 30_000 });
    // Drawn from the PDF: not a blank canvas.
    expect(await thumbnail.evaluate((el) => el.querySelector("canvas")!.getContext("2d")!.getImageData(0, 0, 300, 300).data.some((v, i) => i % 4 !== 3 && v < 200))).toBe(true);
  }
  await shoot(page, "designer-new-template");
  await form.getByLabel("Template name").fill("Designer invoice");
  await starters.getByRole("radio", { name: "Invoice" }).check();
  await form.getByRole("button", { name: "Create template" }).click();
  await page.getByRole("heading", { level: 1, name: "Designer invoice" }).waitFor();
  invoicePath = new URL(page.url()).pathname;
  await page.getByRole("tablist").getByRole("tab", { name: "Design", selected: true }).waitFor();
  await item("text Invoice").waitFor();
  const all = await names();
  expect(all.indexOf("text Invoice")).toBeGreaterThan(-1);
  expect(all.indexOf("table lines")).toBeGreaterThan(all.indexOf("text Invoice"));
  // The real PDF: its text is laid over the page, the sample data's computed total in it.
  await preview().getByRole("group", { name: "Page 1 of 1" }).getByText("€6,235.60").waitFor({ timeout: PREVIEW_MS });
  await preview().getByText("INVOICE", { exact: true }).waitFor();
});

test("a title changed in Design changes the preview's pixels before saving, and shows in the JSON tab at once", async () => {
  const before = await pixels();
  await item("text Invoice").click();
  await properties().getByLabel("Text", { exact: true }).fill("Rechnung");
  await item("text Rechnung").waitFor();
  await newPixels(before);
  await preview().getByText("RECHNUNG", { exact: true }).waitFor();
  expect(await page.getByRole("status").filter({ hasText: "Unsaved changes" }).count()).toBe(1);

  await page.getByRole("tab", { name: "JSON" }).click();
  const json = page.getByRole("textbox", { name: "Draft JSON" });
  const draft = JSON.parse(await copyAll(json));
  expect(JSON.stringify(draft.content)).toContain('"text":"Rechnung"');
  // An edit in the JSON tab shows in Design at once.
  await typeInto(json, JSON.stringify(draft, null, 2).replace('"Rechnung"', '"Factura"'));
  await page.getByRole("tab", { name: "Design" }).click();
  await item("text Factura").waitFor();
  await item("text Factura").click();
  // The designer as a user sees it, once the edit has printed: at the console's desktop size and on a wide screen.
  await preview().getByText("FACTURA", { exact: true }).waitFor({ timeout: PREVIEW_MS });
  await preview().getByRole("status").filter({ hasText: /^Printed at/ }).waitFor();
  await page.screenshot({ path: join(SCREENSHOTS, "designer-1280.png") });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.waitForFunction(() => (document.querySelector('[aria-label="PDF preview"] canvas')?.clientWidth ?? 0) > 600);
  await page.screenshot({ path: join(SCREENSHOTS, "designer-1920.png") });
  await page.setViewportSize(DESKTOP);
});

test("a table bound to lines is added without typing JSON, shows in the preview, and is undone and redone", async () => {
  const tables = () => outline().getByRole("treeitem", { name: "table lines" }).count();
  expect(await tables()).toBe(1);
  await root().click();
  await page.getByRole("button", { name: "Add node" }).click();
  const menu = page.getByRole("menu", { name: "Add node" });
  expect(await menu.getByRole("menuitem").allTextContents()).toEqual(["Text", "Image", "Table", "Repeat", "Container", "Component"]);
  await shoot(page, "designer-add-node");
  await menu.getByRole("menuitem", { name: "Table" }).click();
  expect(await tables()).toBe(2);
  // The new table is selected, bound to the data's first list, with one empty column.
  const form = properties();
  expect(await form.getByLabel("Data source").inputValue()).toBe("lines");
  expect(await form.getByRole("group", { name: /^Column/ }).count()).toBe(1);
  const before = await pixels();
  await form.getByLabel("Header").fill("Second table");
  await form.getByLabel("Value path").fill("description");
  await form.getByRole("button", { name: "Add column" }).click();
  await form.getByLabel("Header").nth(1).fill("Price");
  await form.getByLabel("Value path").nth(1).fill("price");
  await form.getByLabel("Format").nth(1).selectOption("currency");
  // A currency's options show with it; a date's style with a date.
  expect(await form.getByLabel("Currency").count()).toBe(1);
  expect(await form.getByLabel("Locale").count()).toBe(1);
  await newPixels(before);
  await preview().getByText("SECOND TABLE").waitFor({ timeout: PREVIEW_MS });
  await shoot(page, "designer-table");

  // Ctrl+Z steps back through the edits until the table is gone; Redo brings it back, Undo takes it away again.
  for (let i = 0; i < 10 && (await tables()) === 2; i++) await page.keyboard.press("ControlOrMeta+z");
  expect(await tables()).toBe(1);
  await page.getByRole("button", { name: "Redo" }).click();
  expect(await tables()).toBe(2);
  await page.getByRole("button", { name: "Undo" }).click();
  expect(await tables()).toBe(1);
  await page.keyboard.press("ControlOrMeta+Shift+z");
  expect(await tables()).toBe(2);
  await page.getByRole("button", { name: "Undo" }).click();
  expect(await tables()).toBe(1);
  // The draft as it was is shown again, without printing it again.
  await preview().getByText("SECOND TABLE").waitFor({ state: "detached", timeout: PREVIEW_MS });
});

test("nodes move up and down, are dragged to another place, and are deleted", async () => {
  const order = async () => (await names()).filter((n) => /^container (head|parties|totals|notes)$|^table lines$/.test(n));
  expect(await order()).toEqual(["container head", "container parties", "table lines", "container totals", "container notes"]);
  await item("container notes").click();
  await page.getByRole("button", { name: "Move up" }).click();
  expect(await order()).toEqual(["container head", "container parties", "table lines", "container notes", "container totals"]);
  await page.getByRole("button", { name: "Move down" }).click();
  expect(await order()).toEqual(["container head", "container parties", "table lines", "container totals", "container notes"]);
  // Dropped on the middle of the totals (a container), the notes go inside it, after its rows; dropped on the top edge
  // of the table, before it. (Focused first: a press on a row focuses it, and scrolls a row at the outline's edge.)
  const level = (name: string) => item(name).getAttribute("aria-level");
  await item("container notes").focus();
  await item("container notes").dragTo(item("container totals"), { steps: 10 });
  expect(await order()).toEqual(["container head", "container parties", "table lines", "container totals", "container notes"]);
  expect([await level("container totals"), await level("container notes")]).toEqual(["2", "3"]);
  await item("container notes").focus();
  await item("container notes").dragTo(item("table lines"), { targetPosition: { x: 40, y: 2 }, steps: 10 });
  expect(await order()).toEqual(["container head", "container parties", "container notes", "table lines", "container totals"]);
  expect(await level("container notes")).toBe("2");
  await item("container notes").click();
  await page.getByRole("button", { name: "Delete node" }).click();
  expect(await order()).toEqual(["container head", "container parties", "table lines", "container totals"]);
  await page.getByRole("button", { name: "Undo" }).click();
  expect(await order()).toEqual(["container head", "container parties", "container notes", "table lines", "container totals"]);
});

test("a problem in the draft is shown beside its node and its field", async () => {
  await item("text number").click();
  await properties().getByLabel("Data path").fill("numbr");
  const node = outline().locator('[role=treeitem][aria-label="text numbr"][aria-invalid=true]');
  await node.waitFor({ timeout: PREVIEW_MS });
  expect(await node.textContent()).toContain('["numbr"] is not a property of the data schema');
  const field = properties().getByLabel("Data path");
  expect(await field.getAttribute("aria-invalid")).toBe("true");
  await shoot(page, "designer-problem");
  await field.fill("number");
  await outline().locator('[role=treeitem][aria-label="text number"]:not([aria-invalid])').waitFor({ timeout: PREVIEW_MS });
});

test("an image uploaded from the designer shows in the preview", async () => {
  await root().click();
  await page.getByRole("button", { name: "Add node" }).click();
  await page.getByRole("menuitem", { name: "Image" }).click();
  const form = properties();
  await form.getByLabel("Width").fill("300");
  await form.getByLabel("Height").fill("120");
  const red = pngOf(30, 12, () => [220, 20, 20]);
  await form.getByLabel("Upload an image").setInputFiles({ name: "red-logo.png", mimeType: "image/png", buffer: Buffer.from(red) });
  await form.getByRole("status").filter({ hasText: "Uploaded red-logo.png." }).waitFor();
  // "Uploaded" is drawn from the upload's state and the node takes the asset in its onSuccess: two renders, which need
  // not land together. The Asset field is waited for, not read once (an option in a closed select is never "visible").
  await form.getByLabel("Asset").locator("option:checked", { hasText: /^red-logo\.png$/ }).waitFor({ state: "attached" });
  // The image is printed into the PDF: a block of red pixels on the page.
  await page.waitForFunction(
    () => {
      const canvas = document.querySelector<HTMLCanvasElement>('[aria-label="PDF preview"] canvas');
      const data = canvas?.getContext("2d")?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
      let red = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i]! > 180 && data[i + 1]! < 80 && data[i + 2]! < 80) red++;
      return red > 1000;
    },
    undefined,
    { timeout: PREVIEW_MS, polling: 100 },
  );
  await shoot(page, "designer-image");
});

test("the sample data is saved with the draft by Save draft and kept across a reload; Generate sample data fills it from the schema", async () => {
  const sample = page.getByRole("textbox", { name: "Sample data" });
  const data = JSON.parse(await copyAll(sample));
  data.customer.name = "Kept Customer AG";
  await typeInto(sample, JSON.stringify(data, null, 2));
  await preview().getByText("Kept Customer AG").waitFor({ timeout: PREVIEW_MS });
  await page.getByRole("button", { name: "Save draft" }).click();
  await page.getByRole("status").filter({ hasText: "All changes saved" }).waitFor();
  await page.reload();
  await page.getByRole("heading", { level: 1, name: "Designer invoice" }).waitFor();
  expect(JSON.parse(await copyAll(sample)).customer.name).toBe("Kept Customer AG");
  await item("text Factura").waitFor();

  await page.getByRole("button", { name: "Generate sample data" }).click();
  const generated = JSON.parse(await copyAll(sample));
  expect(generated.customer.name).toBe("Example name");
  expect(generated.lines).toHaveLength(2);
  expect(typeof generated.lines[0].price).toBe("number");
});

test("a blank template gets a data schema inferred from its sample data, and offers its paths", async () => {
  await nav("Templates").click();
  await page.getByRole("dialog", { name: "Unsaved changes" }).getByRole("button", { name: "Discard changes" }).click();
  const form = page.getByRole("form", { name: "New template" });
  await form.getByLabel("Template name").fill("Blank");
  await form.getByRole("radio", { name: "Blank" }).check();
  await form.getByRole("button", { name: "Create template" }).click();
  await page.getByRole("heading", { level: 1, name: "Blank" }).waitFor();
  await typeInto(page.getByRole("textbox", { name: "Sample data" }), JSON.stringify({ who: "Ada", lines: [{ item: "Tea" }] }));
  await page.getByRole("button", { name: "Infer schema from sample data" }).click();
  await page.getByRole("button", { name: "Generate sample data" }).waitFor();
  await page.getByRole("button", { name: "Add node" }).click();
  await page.getByRole("menuitem", { name: "Text" }).click();
  const choices = await properties().locator("datalist").first().locator("option").evaluateAll((o) => o.map((e) => (e as HTMLOptionElement).value));
  expect(choices).toEqual(["who", "lines"]);
  await properties().getByLabel("Data path").fill("who");
  await preview().getByText("Ada", { exact: true }).waitFor({ timeout: PREVIEW_MS });
  await shoot(page, "designer-blank");
  await page.goto(invoicePath);
});

test("leaving with unsaved edits asks first: Keep editing stays, Discard changes leaves; a reload gets the browser's prompt", async () => {
  await item("text Factura").click();
  await properties().getByLabel("Text", { exact: true }).fill("Unsaved title");
  await nav("Renders").click();
  const dialog = page.getByRole("dialog", { name: "Unsaved changes" });
  await dialog.waitFor();
  await dialog.getByRole("button", { name: "Keep editing" }).click();
  expect(new URL(page.url()).pathname).toBe(invoicePath);
  await item("text Unsaved title").waitFor();

  // The prompt is waited for, not looked for once the reload's 2 s are up: a renderer busy drawing the preview on a
  // loaded host may open it later. (Dismissed, the reload never ends; its timeout only bounds the wait for it.)
  const prompt = page.waitForEvent("dialog");
  const reload = page.reload({ timeout: 2_000 }).catch(() => {});
  const asked = await prompt;
  expect(asked.type()).toBe("beforeunload");
  await asked.dismiss();
  await reload;
  await item("text Unsaved title").waitFor();

  await nav("Renders").click();
  await dialog.getByRole("button", { name: "Discard changes" }).click();
  await page.getByRole("heading", { level: 1, name: "Renders" }).waitFor();
  // Saved edits ask nothing.
  await page.goto(invoicePath);
  await item("text Factura").waitFor();
  await page.getByRole("link", { name: "← Templates" }).click();
  await page.getByRole("heading", { level: 1, name: "Templates" }).waitFor();
  expect(problems).toEqual([]);
});

/** worked answers a heredoc of docs/authoring.md's worked invoice (`cat > <file> <<'EOF'`). */
function worked(file: string): string {
  const doc = readFileSync(join(import.meta.dir, "../../docs/authoring.md"), "utf8");
  const found = new RegExp(`^cat > ${file.replace(".", "\\.")} <<'EOF'\\n([\\s\\S]*?)^EOF$`, "m").exec(doc);
  if (!found) throw new Error(`docs/authoring.md has no ${file}`);
  return found[1]!;
}

/** withoutColumnIds answers a template's content with its table columns' ids left out (the designer numbers them). */
function withoutColumnIds(node: unknown): unknown {
  return JSON.parse(JSON.stringify(node), (key, value) => (key === "columns" ? (value as { id: string }[]).map(({ id: _, ...rest }) => rest) : value));
}

test("docs/console.md's walkthrough makes docs/authoring.md's worked invoice in the designer, and the preview shows it", async () => {
  const invoice = JSON.parse(worked("invoice.json"));
  const props = properties();
  const add = async (type: string) => {
    await page.getByRole("button", { name: "Add node" }).click();
    await page.getByRole("menu", { name: "Add node" }).getByRole("menuitem", { name: type, exact: true }).click();
  };
  const set = (label: string, value: string) => props.getByLabel(label, { exact: true }).fill(value);
  const text = async (value: string, tw?: string) => {
    await add("Text");
    await set("Text", value);
    if (tw) await set("Tailwind classes", tw);
  };
  const computed = async (expression: string) => {
    await add("Text");
    await set("Expression", expression);
    await props.getByLabel("Format", { exact: true }).selectOption("currency");
  };
  const container = (n: number) => outline().getByRole("treeitem", { name: "container", exact: true }).nth(n);

  // 1. A blank template.
  await nav("Templates").click();
  const form = page.getByRole("form", { name: "New template" });
  await form.getByLabel("Template name").fill("Invoice");
  await form.getByRole("radio", { name: "Blank" }).check();
  await form.getByRole("button", { name: "Create template" }).click();
  await page.getByRole("heading", { level: 1, name: "Invoice" }).waitFor();
  // 2. Sample data, and a data schema inferred from it.
  await typeInto(page.getByRole("textbox", { name: "Sample data" }), JSON.stringify(invoice.sampleData, null, 2));
  await page.getByRole("button", { name: "Infer schema from sample data" }).click();
  // 3. Paper and stylesheet.
  await page.getByText("Page, stylesheet, header and footer").click();
  await page.getByLabel("Page size").selectOption("A4");
  for (const side of ["top", "right", "bottom", "left"]) await page.getByLabel(`Margin ${side}`).fill(invoice.page.margin[side]);
  await page.getByLabel("Stylesheet").fill(invoice.stylesheet);
  // 4. The head: two columns, the logo and the seller on the left, the title, number and date on the right.
  await root().click();
  await add("Container");
  await set("Tailwind classes", "flex justify-between items-start pb-6 border-b-2 border-blue-700");
  await add("Container");
  await add("Image");
  await props.getByLabel("Upload an image").setInputFiles({ name: "logo.svg", mimeType: "image/svg+xml", buffer: Buffer.from(worked("logo.svg")) });
  await props.getByRole("status").filter({ hasText: "Uploaded logo.svg." }).waitFor();
  await set("Width", "160");
  await set("Height", "48");
  await text("Northwind Studio GmbH · Hauptstraße 12 · 10115 Berlin", "mt-2 text-xs text-gray-500");
  await container(1).click();
  await add("Container");
  await set("Tailwind classes", "text-right");
  await text("Invoice", "text-3xl font-bold uppercase tracking-wide text-blue-700");
  await text("No. {number}", "font-bold");
  await add("Text");
  await set("Data path", "date");
  await props.getByLabel("Format", { exact: true }).selectOption("date");
  await props.getByLabel("Date style").selectOption("long");
  // 5. Bill to.
  await root().click();
  await add("Container");
  await set("Tailwind classes", "mt-8");
  await text("Bill to", "text-xs font-bold uppercase text-gray-500");
  await add("Text");
  await set("Data path", "customer.name");
  await set("Tailwind classes", "text-base font-bold");
  await add("Text");
  await set("Data path", "customer.address");
  await set("Class names", "address");
  // 6. The lines: a table bound to the data's first list.
  await root().click();
  await add("Table");
  expect(await props.getByLabel("Data source").inputValue()).toBe("lines");
  await set("Class names", "lines");
  await set("Text when empty", "No lines.");
  const columns: [string, string, string?][] = [
    ["Description", "Value path:description"],
    ["Qty", "Value path:quantity"],
    ["Unit price", "Value path:price", "currency"],
    ["Amount", "Value expression:quantity * price", "currency"],
  ];
  for (const [i, [header, value, format]] of columns.entries()) {
    if (i > 0) await props.getByRole("button", { name: "Add column" }).click();
    const column = props.getByRole("group", { name: `Column ${i + 1}` });
    await column.getByLabel("Header").fill(header);
    const [label, v] = value.split(":") as [string, string];
    await column.getByLabel(label, { exact: true }).fill(v);
    if (format) await column.getByLabel("Format", { exact: true }).selectOption(format);
  }
  // 7. The totals: three rows in a column at the right, each a label and a computed amount.
  await root().click();
  await add("Container");
  await set("Tailwind classes", "w-2/5 ml-auto mt-4");
  const rows: [string, string, string][] = [
    ["flex justify-between py-1", "Subtotal", "$sum(lines.(quantity * price))"],
    ["flex justify-between py-1", "VAT {taxRate}", "$round($sum(lines.(quantity * price)) * taxRate, 2)"],
    ["flex justify-between py-2 mt-1 border-t-2 border-blue-700 text-lg font-bold", "Total", "($net := $sum(lines.(quantity * price)); $net + $round($net * taxRate, 2))"],
  ];
  for (const [tw, label, expression] of rows) {
    await container(5).click();
    await add("Container");
    await set("Tailwind classes", tw);
    await text(label);
    await computed(expression);
  }
  // 8. The footer: the invoice's number, and the page's.
  await page.getByRole("button", { name: "Add footer" }).click();
  await item("text Page {$page.number} of {$page.count}").waitFor();
  await set("Tailwind classes", "font-bold");
  await text("Invoice {number}");
  await page.getByRole("button", { name: "Move up" }).click();
  await outline().getByRole("treeitem", { name: "container", exact: true }).last().click();
  await set("Class names", "footer");
  // 9. What the form does not edit, in the JSON tab: the columns' widths and alignment, the VAT rate's format.
  await page.getByRole("tab", { name: "JSON" }).click();
  const json = page.getByRole("textbox", { name: "Draft JSON" });
  const draft = JSON.parse(await copyAll(json));
  const table = draft.content.children[2];
  for (const [i, width] of [[1, 50], [2, 100], [3, 100]] as const) Object.assign(table.columns[i], { width, style: { textAlign: "right" } });
  draft.content.children[3].children[1].children[0].text.parts[1].format = { type: "percent" };
  await typeInto(json, JSON.stringify(draft, null, 2));
  await page.getByRole("tab", { name: "Design" }).click();

  // 10. The preview has followed: the computed totals of the sample's one line, the footer, the logo's blue.
  for (const shown of ["€1,130.50", "VAT 19%", "€180.50", "No. INV-0001", "March 2, 2026", "Invoice INV-0001", "Page 1 of 1"])
    await preview().getByText(shown).first().waitFor({ timeout: PREVIEW_MS });
  await page.getByRole("button", { name: "Save draft" }).click();
  await page.getByRole("status").filter({ hasText: "All changes saved" }).waitFor();
  await shoot(page, "designer-worked-invoice");
  // The saved draft is the worked invoice's, but for the column ids and the data schema (inferred: nothing required).
  const id = new URL(page.url()).pathname.split("/").pop();
  const saved = await page.evaluate(async (id) => (await (await fetch(`/v1/templates/${id}`)).json()).draft, id);
  const logo = saved.content.children[0].children[0].children[0].assetId;
  expect(logo).toMatch(/^ast_/);
  const expected = JSON.parse(JSON.stringify(invoice).replace("LOGO_ID", logo));
  for (const field of ["page", "stylesheet", "sampleData", "footer"]) expect({ [field]: saved[field] }).toEqual({ [field]: expected[field] });
  expect(withoutColumnIds(saved.content)).toEqual(withoutColumnIds(expected.content));
  expect(Object.keys(saved.dataSchema.properties)).toEqual(Object.keys(expected.dataSchema.properties));
}, 180_000);

/** apiCall calls the API with the page's session, as another tab or a script of the same user would. */
function apiCall(path: string, method = "GET", body?: unknown): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ({ path, method, body }) => {
      const res = await fetch(path, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    },
    { path, method, body },
  );
}

test("a save over a draft changed elsewhere keeps the edits and asks: Save mine anyway saves over it, Load theirs drops them", async () => {
  const created = await apiCall("/v1/templates", "POST", { name: "Contested", content: { type: "text", text: "First" } });
  expect(created.status).toBe(201);
  const path = `/console/templates/${created.body.id}`;
  const text = () => properties().getByLabel("Text", { exact: true });
  const saveDraft = () => page.getByRole("button", { name: "Save draft" }).click();
  const saved = () => page.getByRole("status").filter({ hasText: "All changes saved" }).waitFor();
  const conflict = page.getByRole("alert", { name: "Draft changed elsewhere" });
  const draftText = async () => (await apiCall(`/v1/templates/${created.body.id}`)).body.draft.content.text;
  await page.goto(path);
  await item("text First").click();

  await text().fill("Mine");
  expect((await apiCall(`/v1/templates/${created.body.id}`, "PATCH", { content: { type: "text", text: "Theirs" } })).status).toBe(200);
  await saveDraft();
  await conflict.getByText(/^This draft was changed elsewhere at \d{1,2}:\d\d( [AP]M)?, after you opened it\.$/).waitFor();
  await shoot(page, "designer-conflict");
  await item("text Mine").waitFor();
  await page.getByRole("status").filter({ hasText: "Unsaved changes" }).waitFor();
  expect(await draftText()).toBe("Theirs");
  await conflict.getByRole("button", { name: "Save mine anyway" }).click();
  await saved();
  expect(await conflict.count()).toBe(0);
  expect(await draftText()).toBe("Mine");
  // The save's answer is the state the next save is made from: no conflict with itself.
  await text().fill("Mine again");
  await saveDraft();
  await saved();
  expect(await draftText()).toBe("Mine again");

  await apiCall(`/v1/templates/${created.body.id}`, "PATCH", { content: { type: "text", text: "Theirs again" } });
  await text().fill("Mine, lost");
  await saveDraft();
  await conflict.getByRole("button", { name: "Load theirs" }).click();
  await item("text Theirs again").waitFor();
  await saved();
  await item("text Theirs again").click();
  await text().fill("After theirs");
  await saveDraft();
  await saved();
  expect(await draftText()).toBe("After theirs");
  expect(problems).toEqual([]);
});
