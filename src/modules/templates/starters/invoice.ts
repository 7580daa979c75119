/** starters/invoice: an invoice — seller and customer, lines with amounts computed per line, subtotal, VAT and total,
 * payment terms, and a footer with the page number. */
import type { CompositionNode } from "../../../render/compile/model";
import type { TemplateStarter } from "../model";

const EUR = { type: "currency", currency: "EUR" } as const;
const SUBTOTAL = "$sum(lines.(quantity * price))";

const labelled = (label: string, value: CompositionNode): CompositionNode => ({
  type: "container",
  className: "row",
  children: [{ type: "text", text: label, className: "label" }, value],
});

/** INVOICE is the invoice starter. */
export const INVOICE: TemplateStarter = {
  id: "invoice",
  name: "Invoice",
  description: "An invoice: seller and customer, a table of lines with amounts computed per line, subtotal, VAT and total, payment terms and a page footer.",
  source: {
    page: { size: "A4", margin: { top: "18mm", right: "18mm", bottom: "22mm", left: "18mm" } },
    stylesheet: `body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; font-size: 10pt; color: #1f2937; line-height: 1.45; }
.head { display: flex; justify-content: space-between; align-items: flex-start; padding-bottom: 8mm; border-bottom: 2px solid #1d4ed8; }
.seller-name { font-size: 15pt; font-weight: bold; color: #111827; }
.address { white-space: pre-line; color: #4b5563; }
.meta { text-align: right; }
.title { font-size: 26pt; font-weight: bold; letter-spacing: 0.04em; color: #1d4ed8; text-transform: uppercase; margin-bottom: 3mm; }
.row { display: flex; justify-content: space-between; gap: 6mm; }
.meta .row { justify-content: flex-end; }
.label { color: #6b7280; }
.parties { display: flex; justify-content: space-between; margin: 9mm 0 8mm; }
.party-name { font-weight: bold; font-size: 11pt; }
.caption { font-size: 8pt; font-weight: bold; letter-spacing: 0.08em; text-transform: uppercase; color: #6b7280; margin-bottom: 1.5mm; }
.lines { width: 100%; border-collapse: collapse; }
.lines th { text-align: left; font-size: 8pt; letter-spacing: 0.06em; text-transform: uppercase; color: #6b7280; border-bottom: 1px solid #9ca3af; padding: 2mm 2mm; }
.lines td { padding: 2.5mm 2mm; border-bottom: 1px solid #e5e7eb; vertical-align: top; }
.lines tr { break-inside: avoid; }
.totals { width: 42%; margin: 6mm 0 0 auto; }
.totals .row { padding: 1.2mm 2mm; }
.grand { border-top: 2px solid #1d4ed8; margin-top: 1mm; font-size: 12pt; font-weight: bold; color: #111827; }
.notes { margin-top: 12mm; padding: 4mm 5mm; background: #f3f4f6; border-radius: 2mm; }
.footer { box-sizing: border-box; display: flex; justify-content: space-between; width: 100%; padding: 0 18mm; font-size: 8pt; color: #6b7280; }`,
    dataSchema: {
      type: "object",
      required: ["number", "date", "seller", "customer", "lines", "taxRate"],
      properties: {
        number: { type: "string" },
        date: { type: "string" },
        dueDate: { type: "string" },
        seller: {
          type: "object",
          required: ["name"],
          properties: { name: { type: "string" }, address: { type: "string" }, email: { type: "string" }, vatId: { type: "string" } },
        },
        customer: { type: "object", required: ["name"], properties: { name: { type: "string" }, address: { type: "string" } } },
        taxRate: { type: "number" },
        lines: {
          type: "array",
          items: {
            type: "object",
            required: ["description", "quantity", "price"],
            properties: { description: { type: "string" }, quantity: { type: "number" }, price: { type: "number" } },
          },
        },
        notes: { type: "string" },
      },
    },
    sampleData: {
      number: "INV-2026-0042",
      date: "2026-03-02",
      dueDate: "2026-03-16",
      seller: { name: "Northwind Studio GmbH", address: "Hauptstraße 12\n10115 Berlin\nGermany", email: "billing@northwind.example", vatId: "DE123456789" },
      customer: { name: "Acme Corporation", address: "500 Market Street\nSan Francisco, CA 94105\nUnited States" },
      taxRate: 0.19,
      lines: [
        { description: "Brand workshop, two days on site", quantity: 2, price: 1200 },
        { description: "Logo design: three concepts, two rounds of changes", quantity: 1, price: 2400 },
        { description: "Business card layout", quantity: 1, price: 350 },
        { description: "Printed business cards", quantity: 500, price: 0.18 },
      ],
      notes: "Please transfer the total to IBAN DE89 3704 0044 0532 0130 00 (BIC COBADEFFXXX) by the due date, quoting the invoice number.",
    },
    content: {
      type: "container",
      children: [
        {
          type: "container",
          className: "head",
          children: [
            {
              type: "container",
              children: [
                { type: "text", text: { path: ["seller", "name"] }, className: "seller-name" },
                { type: "text", text: { path: ["seller", "address"] }, className: "address" },
                { type: "text", text: { path: ["seller", "email"] }, className: "label" },
              ],
            },
            {
              type: "container",
              className: "meta",
              children: [
                { type: "text", text: "Invoice", className: "title" },
                labelled("Number", { type: "text", text: { path: ["number"] }, tw: "font-bold" }),
                labelled("Date", { type: "text", text: { path: ["date"], format: { type: "date", dateStyle: "long" } } }),
                { ...labelled("Due", { type: "text", text: { path: ["dueDate"], format: { type: "date", dateStyle: "long" } } }), visibleWhen: { path: ["dueDate"], operator: "exists" } },
              ],
            },
          ],
        },
        {
          type: "container",
          className: "parties",
          children: [
            {
              type: "container",
              children: [
                { type: "text", text: "Bill to", className: "caption" },
                { type: "text", text: { path: ["customer", "name"] }, className: "party-name" },
                { type: "text", text: { path: ["customer", "address"] }, className: "address" },
              ],
            },
            {
              type: "container",
              className: "meta",
              visibleWhen: { path: ["seller", "vatId"], operator: "exists" },
              children: [
                { type: "text", text: "VAT number", className: "caption" },
                { type: "text", text: { path: ["seller", "vatId"] } },
              ],
            },
          ],
        },
        {
          type: "table",
          className: "lines",
          source: { path: ["lines"] },
          emptyText: "No lines.",
          columns: [
            { id: "description", header: "Description", value: { path: ["description"] } },
            { id: "quantity", header: "Qty", value: { path: ["quantity"], format: { type: "number" } }, width: 60, style: { textAlign: "right" } },
            { id: "price", header: "Unit price", value: { path: ["price"], format: EUR }, width: 95, style: { textAlign: "right" } },
            { id: "amount", header: "Amount", value: { expression: "quantity * price", format: EUR }, width: 105, style: { textAlign: "right" } },
          ],
        },
        {
          type: "container",
          className: "totals",
          children: [
            labelled("Subtotal", { type: "text", text: { expression: SUBTOTAL, format: EUR } }),
            {
              type: "container",
              className: "row",
              children: [
                { type: "text", text: { parts: ["VAT ", { path: ["taxRate"], format: { type: "percent" } }] }, className: "label" },
                { type: "text", text: { expression: `$round(${SUBTOTAL} * taxRate, 2)`, format: EUR } },
              ],
            },
            {
              type: "container",
              className: "row grand",
              children: [
                { type: "text", text: "Total due" },
                { type: "text", text: { expression: `($net := ${SUBTOTAL}; $net + $round($net * taxRate, 2))`, format: EUR } },
              ],
            },
          ],
        },
        {
          type: "container",
          className: "notes",
          visibleWhen: { path: ["notes"], operator: "exists" },
          children: [
            { type: "text", text: "Payment", className: "caption" },
            { type: "text", text: { path: ["notes"] } },
          ],
        },
      ],
    },
    footer: {
      type: "container",
      className: "footer",
      children: [
        { type: "text", text: { parts: [{ path: ["seller", "name"] }, " · Invoice ", { path: ["number"] }] } },
        { type: "text", text: { parts: ["Page ", { path: ["$page", "number"] }, " of ", { path: ["$page", "count"] }] } },
      ],
    },
  },
};
