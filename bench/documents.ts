/** bench/documents: the documents bench/render.ts prints — bench/floor.ts's invoice as a template, and a 1000-row table report. */
import type { CompositionNode, TemplateSource, ValueFormat } from "../src/render/compile/model";
import { INVOICE_LINES } from "./floor";

// The documents: the invoice of bench/floor.ts as a template (composition nodes can only make divs and tables, so
// its header, address blocks, totals and terms are divs with classes, styled by the same CSS), and a 1000-row report.

const INVOICE_CSS = `
body { font-family: "DejaVu Sans", "Liberation Sans", sans-serif; font-size: 10pt; color: #1d2430; }
.top { display: flex; justify-content: space-between; align-items: flex-start; border-bottom: 3px solid #2f5fd0; padding-bottom: 10px; }
.brand { font-size: 20pt; font-weight: 700; color: #2f5fd0; letter-spacing: .5px; }
.brand .sub { font-size: 8pt; font-weight: 400; color: #667; letter-spacing: 0; }
.meta { text-align: right; font-size: 9pt; }
.meta .title { margin: 0 0 4px; font-size: 16pt; font-weight: 700; text-transform: uppercase; color: #444; }
.meta .number { font-weight: 700; }
.parties { display: flex; gap: 24px; margin: 18px 0; }
.party { flex: 1; background: #f3f6fc; border-radius: 4px; padding: 8px 10px; line-height: 1.45; }
.party .label { font-size: 8pt; font-weight: 700; text-transform: uppercase; color: #2f5fd0; margin-bottom: 2px; }
table { width: 100%; border-collapse: collapse; }
th { background: #2f5fd0; color: #fff; font-weight: 600; text-align: left; padding: 6px 8px; font-size: 9pt; }
td { padding: 6px 8px; border-bottom: 1px solid #dde3ee; vertical-align: top; }
tr:nth-child(even) td { background: #fafbfe; }
.lines th:first-child, .lines td:first-child { width: 20px; color: #889; }
.lines th:nth-child(n+3), .lines td:nth-child(n+3), .totals td:last-child { text-align: right; white-space: nowrap; }
.totals { margin-left: auto; width: 45%; margin-top: 12px; }
.totals td { border: none; padding: 3px 8px; background: none; }
.totals tr:last-child td { font-size: 12pt; font-weight: 700; border-top: 2px solid #2f5fd0; padding-top: 6px; }
.terms { margin-top: 28px; font-size: 8pt; color: #667; border-top: 1px solid #dde3ee; padding-top: 8px; line-height: 1.5; }
`;

const MONEY: ValueFormat = { type: "number", locale: "en-GB", minimumFractionDigits: 2, maximumFractionDigits: 2 };
const text = (path: string[], className?: string): CompositionNode => ({ type: "text", text: { path }, ...(className ? { className } : {}) });

/** INVOICE_TEMPLATE is bench/floor.ts's invoice as composition nodes. */
export const INVOICE_TEMPLATE: TemplateSource = {
  page: { size: "A4", margin: { top: "18mm", right: "16mm", bottom: "18mm", left: "16mm" } },
  stylesheet: INVOICE_CSS,
  dataSchema: {
    type: "object",
    required: ["number", "lines"],
    properties: {
      number: { type: "string" },
      issued: { type: "string" },
      due: { type: "string" },
      seller: { type: "object", properties: { name: { type: "string" }, address: { type: "string" } } },
      parties: {
        type: "array",
        items: { type: "object", properties: { label: { type: "string" }, lines: { type: "array", items: { type: "object", properties: { text: { type: "string" } } } } } },
      },
      lines: {
        type: "array",
        items: { type: "object", properties: { n: { type: "number" }, text: { type: "string" }, qty: { type: "number" }, price: { type: "number" }, amount: { type: "number" } } },
      },
      totals: { type: "array", items: { type: "object", properties: { label: { type: "string" }, prefix: { type: "string" }, amount: { type: "number" } } } },
    },
  },
  content: {
    type: "container",
    children: [
      {
        type: "container",
        className: "top",
        children: [
          { type: "container", className: "brand", children: [text(["seller", "name"]), text(["seller", "address"], "sub")] },
          {
            type: "container",
            className: "meta",
            children: [
              { type: "text", className: "title", text: "Invoice" },
              { type: "text", text: { parts: ["No. ", { path: ["number"] }] } },
              { type: "text", text: { path: ["issued"], prefix: "Issued ", format: { type: "date", locale: "en-GB", dateStyle: "long" } } },
              { type: "text", text: { path: ["due"], prefix: "Due ", format: { type: "date", locale: "en-GB", dateStyle: "long" } } },
            ],
          },
        ],
      },
      {
        type: "repeat",
        className: "parties",
        source: { path: ["parties"] },
        children: [{ type: "container", className: "party", children: [text(["label"], "label"), { type: "repeat", source: { path: ["lines"] }, children: [text(["text"])] }] }],
      },
      {
        type: "table",
        className: "lines",
        source: { path: ["lines"] },
        columns: [
          { id: "n", header: "#", value: { path: ["n"] } },
          { id: "text", header: "Description", value: { path: ["text"] } },
          { id: "qty", header: "Qty", value: { path: ["qty"] } },
          { id: "price", header: "Unit (GBP)", value: { path: ["price"], format: MONEY } },
          { id: "amount", header: "Amount (GBP)", value: { path: ["amount"], format: MONEY } },
        ],
      },
      {
        type: "table",
        className: "totals",
        showHeader: false,
        source: { path: ["totals"] },
        columns: [
          { id: "label", header: "", value: { path: ["label"] } },
          { id: "amount", header: "", value: { parts: [{ path: ["prefix"] }, { path: ["amount"], format: MONEY }] } },
        ],
      },
      {
        type: "text",
        className: "terms",
        text: {
          parts: [
            "Payment within 30 days to ",
            { path: ["seller", "name"] },
            ", IBAN GB29 NWBK 6016 1331 9268 19, BIC NWBKGB2L, quoting ",
            { path: ["number"] },
            ". Late payments accrue interest at 8% above the Bank of England base rate. Thank you for your business.",
          ],
        },
      },
    ],
  },
};

/** invoiceData is the data of bench/floor.ts's invoice for INVOICE_TEMPLATE. */
export function invoiceData(number = "INV-2026-00042") {
  const net = INVOICE_LINES.reduce((sum, [, qty, price]) => sum + qty * price, 0);
  return {
    number,
    issued: "2026-01-15",
    due: "2026-02-14",
    seller: { name: "Northwind Rendering Ltd", address: "12 Harbour Street · Bristol BS1 4RN · VAT GB 123 4567 89" },
    parties: [
      { label: "Bill to", lines: ["Contoso Logistics GmbH", "Attn. Accounts Payable", "Speicherstraße 8", "20457 Hamburg, Germany"] },
      { label: "Ship to", lines: ["Contoso Logistics GmbH", "Warehouse 3, Gate B", "Am Kaiserkai 22", "20457 Hamburg, Germany"] },
      { label: "Reference", lines: ["PO 4500-778123", "Contract NW-2025-17", "Customer no. C-00931", "Project “Docs 2026”"] },
    ].map((p) => ({ label: p.label, lines: p.lines.map((t) => ({ text: t })) })),
    lines: INVOICE_LINES.map(([t, qty, price], i) => ({ n: i + 1, text: t, qty, price, amount: qty * price })),
    totals: [
      { label: "Net", prefix: "", amount: net },
      { label: "VAT 20%", prefix: "", amount: net * 0.2 },
      { label: "Total due", prefix: "GBP ", amount: net * 1.2 },
    ],
  };
}

const CURRENCY: ValueFormat = { type: "currency", currency: "EUR", locale: "de-DE" };

/** REPORT_TEMPLATE is a table report: a title, a 5-column table over `items` (three currency columns) and page numbers. */
export const REPORT_TEMPLATE: TemplateSource = {
  page: { size: "A4", margin: { top: "15mm", right: "12mm", bottom: "18mm", left: "12mm" } },
  stylesheet: `
body { font-family: "DejaVu Sans", "Liberation Sans", sans-serif; font-size: 8.5pt; color: #1d2430; }
.title { font-size: 14pt; font-weight: 700; color: #2f5fd0; margin-bottom: 2px; }
.subtitle { color: #667; margin-bottom: 8px; }
table { width: 100%; border-collapse: collapse; }
th { background: #2f5fd0; color: #fff; text-align: left; padding: 4px 6px; }
td { padding: 3px 6px; border-bottom: 1px solid #dde3ee; }
tr:nth-child(even) td { background: #f6f8fc; }
th:nth-child(n+3), td:nth-child(n+3) { text-align: right; white-space: nowrap; }
`,
  dataSchema: {
    type: "object",
    properties: {
      title: { type: "string" },
      period: { type: "string" },
      items: {
        type: "array",
        items: { type: "object", properties: { sku: { type: "string" }, name: { type: "string" }, qty: { type: "number" }, price: { type: "number" }, amount: { type: "number" } } },
      },
    },
  },
  content: {
    type: "container",
    children: [
      { type: "text", className: "title", text: { path: ["title"] } },
      { type: "text", className: "subtitle", text: { path: ["period"] } },
      {
        type: "table",
        source: { path: ["items"] },
        columns: [
          { id: "sku", header: "SKU", value: { path: ["sku"] } },
          { id: "name", header: "Product", value: { path: ["name"] } },
          { id: "qty", header: "Qty", value: { path: ["qty"], format: { type: "number", locale: "de-DE" } } },
          { id: "price", header: "Unit price", value: { path: ["price"], format: CURRENCY } },
          { id: "amount", header: "Amount", value: { path: ["amount"], format: CURRENCY } },
        ],
      },
    ],
  },
  footer: {
    type: "text",
    style: { textAlign: "right", paddingRight: "12mm", color: "#667" },
    text: { parts: ["Page ", { path: ["$page", "number"] }, " of ", { path: ["$page", "count"] }] },
  },
};

const PRODUCTS = ["Steel bracket", "Hex bolt M8 × 40", "Cable gland PG11", "Pallet wrap 500 mm", "Label roll 100 × 150", "Safety gloves, size 9", "Shelf rail 2 m", "Bearing 6204-2RS"];

/** reportData is `rows` lines of stock movements, deterministic. */
export function reportData(rows = 1000) {
  return {
    title: "Stock movements",
    period: "1 January – 31 March 2026 · warehouse Hamburg 3",
    items: Array.from({ length: rows }, (_, i) => {
      const qty = 1 + ((i * 37) % 90);
      const price = Math.round((3 + ((i * 7919) % 4000) / 17) * 100) / 100;
      return { sku: `SKU-${String(10000 + i * 13).padStart(6, "0")}`, name: `${PRODUCTS[i % PRODUCTS.length]} — lot ${1 + (i % 23)}`, qty, price, amount: Math.round(qty * price * 100) / 100 };
    }),
  };
}
