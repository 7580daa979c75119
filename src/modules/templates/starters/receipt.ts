/** starters/receipt: a receipt for a paid purchase — shop, items with computed amounts, VAT included in the total, how
 * it was paid, and a thank-you line; A5. */
import type { TemplateStarter } from "../model";

const EUR = { type: "currency", currency: "EUR" } as const;
const TOTAL = "$sum(items.(quantity * price))";

/** RECEIPT is the receipt starter. */
export const RECEIPT: TemplateStarter = {
  id: "receipt",
  name: "Receipt",
  description: "A receipt for a paid purchase: shop, items with computed amounts, the VAT the total includes, the payment and a thank-you line (A5).",
  source: {
    page: { size: "A5", margin: { top: "14mm", right: "14mm", bottom: "18mm", left: "14mm" } },
    stylesheet: `body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; font-size: 9.5pt; color: #1f2937; line-height: 1.4; }
.shop { text-align: center; padding-bottom: 5mm; border-bottom: 1px dashed #9ca3af; }
.shop-name { font-size: 16pt; font-weight: bold; letter-spacing: 0.02em; }
.address { white-space: pre-line; color: #4b5563; }
.title { text-align: center; font-size: 12pt; font-weight: bold; letter-spacing: 0.12em; text-transform: uppercase; margin: 5mm 0 3mm; }
.facts { margin-bottom: 4mm; }
.row { display: flex; justify-content: space-between; gap: 4mm; }
.label { color: #6b7280; }
.items { width: 100%; border-collapse: collapse; }
.items th { text-align: left; font-size: 7.5pt; text-transform: uppercase; letter-spacing: 0.06em; color: #6b7280; border-bottom: 1px solid #9ca3af; padding: 1.5mm 1mm; }
.items td { padding: 1.8mm 1mm; border-bottom: 1px solid #e5e7eb; vertical-align: top; }
.sums { margin-top: 3mm; }
.sums .row { padding: 0.8mm 1mm; }
.total { font-size: 12pt; font-weight: bold; border-top: 2px solid #111827; border-bottom: 2px solid #111827; margin: 1.5mm 0; padding: 1.5mm 1mm; }
.thanks { text-align: center; margin-top: 8mm; font-size: 11pt; }
.footer { box-sizing: border-box; width: 100%; text-align: center; padding: 0 14mm; font-size: 7.5pt; color: #6b7280; }`,
    dataSchema: {
      type: "object",
      required: ["shop", "number", "paidAt", "items", "taxRate", "payment"],
      properties: {
        shop: { type: "object", required: ["name"], properties: { name: { type: "string" }, address: { type: "string" }, vatId: { type: "string" } } },
        number: { type: "string" },
        paidAt: { type: "string" },
        cashier: { type: "string" },
        taxRate: { type: "number" },
        payment: { type: "object", required: ["method"], properties: { method: { type: "string" }, reference: { type: "string" } } },
        items: {
          type: "array",
          items: { type: "object", required: ["name", "quantity", "price"], properties: { name: { type: "string" }, quantity: { type: "number" }, price: { type: "number" } } },
        },
      },
    },
    sampleData: {
      shop: { name: "Corner Books & Coffee", address: "Lindenallee 4\n50968 Köln", vatId: "DE298765432" },
      number: "R-10487",
      paidAt: "2026-03-07T15:42:00Z",
      cashier: "Mara",
      taxRate: 0.07,
      payment: { method: "Card (Visa)", reference: "•••• 4242" },
      items: [
        { name: "The Pragmatic Programmer", quantity: 1, price: 42.9 },
        { name: "Notebook, dotted A5", quantity: 2, price: 8.5 },
        { name: "Flat white", quantity: 2, price: 3.6 },
      ],
    },
    content: {
      type: "container",
      children: [
        {
          type: "container",
          className: "shop",
          children: [
            { type: "text", text: { path: ["shop", "name"] }, className: "shop-name" },
            { type: "text", text: { path: ["shop", "address"] }, className: "address" },
            { type: "text", text: { path: ["shop", "vatId"], prefix: "VAT no. " }, className: "label" },
          ],
        },
        { type: "text", text: "Receipt", className: "title" },
        {
          type: "container",
          className: "facts",
          children: [
            { type: "container", className: "row", children: [{ type: "text", text: "Receipt", className: "label" }, { type: "text", text: { path: ["number"] } }] },
            {
              type: "container",
              className: "row",
              children: [{ type: "text", text: "Date", className: "label" }, { type: "text", text: { path: ["paidAt"], format: { type: "date", dateStyle: "medium" } } }],
            },
            {
              type: "container",
              className: "row",
              visibleWhen: { path: ["cashier"], operator: "exists" },
              children: [{ type: "text", text: "Served by", className: "label" }, { type: "text", text: { path: ["cashier"] } }],
            },
          ],
        },
        {
          type: "table",
          className: "items",
          source: { path: ["items"] },
          columns: [
            { id: "name", header: "Item", value: { path: ["name"] } },
            { id: "quantity", header: "Qty", value: { path: ["quantity"] }, width: 34, style: { textAlign: "right" } },
            { id: "amount", header: "Amount", value: { expression: "quantity * price", format: EUR }, width: 80, style: { textAlign: "right" } },
          ],
        },
        {
          type: "container",
          className: "sums",
          children: [
            {
              type: "container",
              className: "row total",
              children: [{ type: "text", text: "Total" }, { type: "text", text: { expression: TOTAL, format: EUR } }],
            },
            {
              type: "container",
              className: "row",
              children: [
                { type: "text", text: { parts: ["Includes VAT ", { path: ["taxRate"], format: { type: "percent" } }] }, className: "label" },
                { type: "text", text: { expression: `$round(${TOTAL} * taxRate / (1 + taxRate), 2)`, format: EUR }, className: "label" },
              ],
            },
            {
              type: "container",
              className: "row",
              children: [
                { type: "text", text: { parts: ["Paid by ", { path: ["payment", "method"] }] } },
                { type: "text", text: { path: ["payment", "reference"] } },
              ],
            },
          ],
        },
        { type: "text", text: "Thank you for your visit!", className: "thanks", tw: "italic" },
      ],
    },
    footer: {
      type: "text",
      className: "footer",
      text: { parts: [{ path: ["shop", "name"] }, " · Receipt ", { path: ["number"] }, " · Please keep this receipt for returns within 30 days."] },
    },
  },
};
