/** starters: the templates a new one can begin from (invoice, letter, report); each is a valid create body. */
import type { CompositionNode, PageSettings } from "../../../src/render/compile/model";
import type { CreateTemplateBody } from "../../../src/modules/templates/model";

const page: PageSettings = { size: "A4", orientation: "portrait", margin: { top: "20mm", right: "18mm", bottom: "20mm", left: "18mm" } };
const footer: CompositionNode = { type: "text", text: { parts: ["Page ", { path: ["$page", "number"] }, " of ", { path: ["$page", "count"] }] }, className: "footer" };

/** STARTERS maps a starter's name to its template body (without the name the user gives). */
export const STARTERS: Record<"invoice" | "letter" | "report", Omit<CreateTemplateBody, "name">> = {
  invoice: {
    description: "An invoice: seller, customer, lines and total.",
    page,
    footer,
    stylesheet: "body { font-family: sans-serif; font-size: 11pt; } h1 { font-size: 20pt; } .total { font-weight: bold; text-align: right; }",
    content: {
      type: "container",
      children: [
        { type: "text", text: "Invoice", className: "title" },
        { type: "text", text: { parts: ["Invoice number: ", { path: ["number"] }] } },
        { type: "text", text: { parts: ["Bill to: ", { path: ["customer", "name"] }] } },
        {
          type: "table",
          source: { path: ["lines"] },
          emptyText: "No lines.",
          columns: [
            { id: "item", header: "Item", value: { path: ["description"] } },
            { id: "qty", header: "Quantity", value: { path: ["quantity"] } },
            { id: "price", header: "Price", value: { path: ["price"], format: { type: "currency", currency: "EUR" } } },
          ],
        },
        { type: "text", text: { parts: ["Total: ", { path: ["total"], format: { type: "currency", currency: "EUR" } }] }, className: "total" },
      ],
    },
  },
  letter: {
    description: "A letter: address, date, greeting, body and signature.",
    page,
    stylesheet: "body { font-family: serif; font-size: 12pt; line-height: 1.5; } .address { margin-bottom: 12mm; }",
    content: {
      type: "container",
      children: [
        { type: "text", text: { path: ["recipient"] }, className: "address" },
        { type: "text", text: { path: ["date"] } },
        { type: "text", text: { parts: ["Dear ", { path: ["name"] }, ","] } },
        { type: "text", text: "Thank you for your letter. This is the body of the reply." },
        { type: "text", text: "Yours sincerely," },
      ],
    },
  },
  report: {
    description: "A report: a title, a summary and a table of figures.",
    page,
    footer,
    stylesheet: "body { font-family: sans-serif; font-size: 10pt; } .title { font-size: 22pt; font-weight: bold; }",
    content: {
      type: "container",
      children: [
        { type: "text", text: "Monthly report", className: "title" },
        { type: "text", text: { path: ["summary"] } },
        {
          type: "table",
          source: { path: ["rows"] },
          emptyText: "No figures this month.",
          columns: [
            { id: "label", header: "Measure", value: { path: ["label"] } },
            { id: "value", header: "Value", value: { path: ["value"], format: { type: "number" } } },
          ],
        },
      ],
    },
  },
};
