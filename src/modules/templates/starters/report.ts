/** starters/report: a monthly report — key figures as cards, a table of regions with totals computed from it, notes,
 * and a header and footer on every page. */
import type { TemplateStarter } from "../model";

const EUR0 = { type: "currency", currency: "EUR", maximumFractionDigits: 0 } as const;

/** REPORT is the report starter. */
export const REPORT: TemplateStarter = {
  id: "report",
  name: "Report",
  description: "A monthly report: key figures as cards, a table of regions with totals computed from it, notes, and a header and page footer on every page.",
  source: {
    page: { size: "A4", margin: { top: "24mm", right: "16mm", bottom: "20mm", left: "16mm" } },
    stylesheet: `body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; font-size: 10pt; color: #1f2937; line-height: 1.45; }
.title { font-size: 22pt; font-weight: bold; color: #111827; }
.subtitle { color: #6b7280; margin-bottom: 7mm; }
.summary { font-size: 11pt; margin-bottom: 7mm; }
.cards { display: grid; grid-template-columns: repeat(3, 1fr); gap: 4mm; margin-bottom: 8mm; }
.card { border: 1px solid #e5e7eb; border-top: 3px solid #7c3aed; border-radius: 1.5mm; padding: 3mm 4mm; break-inside: avoid; }
.card-label { font-size: 8pt; text-transform: uppercase; letter-spacing: 0.06em; color: #6b7280; }
.card-value { font-size: 17pt; font-weight: bold; color: #111827; }
.card-change { font-size: 8.5pt; color: #047857; }
.section { font-size: 12pt; font-weight: bold; margin: 2mm 0 3mm; color: #4c1d95; }
.figures { width: 100%; border-collapse: collapse; }
.figures th { text-align: left; background: #f5f3ff; color: #4c1d95; font-size: 8.5pt; padding: 2mm; }
.figures td { padding: 2mm; border-bottom: 1px solid #e5e7eb; }
.figures tr { break-inside: avoid; }
.total { display: flex; justify-content: space-between; font-weight: bold; padding: 2.5mm 2mm; border-top: 2px solid #4c1d95; margin-bottom: 8mm; }
.notes { padding-left: 5mm; border-left: 3px solid #c4b5fd; color: #374151; }
.header { box-sizing: border-box; display: flex; justify-content: space-between; width: 100%; padding: 0 16mm; font-size: 8pt; color: #6b7280; }
.footer { box-sizing: border-box; display: flex; justify-content: space-between; width: 100%; padding: 0 16mm; font-size: 8pt; color: #6b7280; }`,
    dataSchema: {
      type: "object",
      required: ["title", "period", "kpis", "regions"],
      properties: {
        title: { type: "string" },
        period: { type: "string" },
        company: { type: "string" },
        preparedBy: { type: "string" },
        summary: { type: "string" },
        kpis: {
          type: "array",
          items: { type: "object", required: ["label", "value"], properties: { label: { type: "string" }, value: { type: "string" }, change: { type: "string" } } },
        },
        regions: {
          type: "array",
          items: {
            type: "object",
            required: ["name", "revenue", "orders"],
            properties: { name: { type: "string" }, revenue: { type: "number" }, orders: { type: "number" }, growth: { type: "number" } },
          },
        },
        notes: { type: "string" },
      },
    },
    sampleData: {
      title: "Sales report",
      period: "February 2026",
      company: "Fjord Outdoor AS",
      preparedBy: "Finance team",
      summary:
        "Revenue grew for the third month in a row, led by the Nordic stores and the new online shop in Germany. Returns fell to 2.1% after the sizing guide was added to every product page.",
      kpis: [
        { label: "Revenue", value: "€1.84 m", change: "+6.2% on January" },
        { label: "Orders", value: "12,480", change: "+4.8% on January" },
        { label: "Average order", value: "€147", change: "+1.3% on January" },
      ],
      regions: [
        { name: "Norway", revenue: 612400, orders: 4120, growth: 0.051 },
        { name: "Sweden", revenue: 448900, orders: 3055, growth: 0.072 },
        { name: "Denmark", revenue: 301250, orders: 2010, growth: 0.034 },
        { name: "Germany (online)", revenue: 389700, orders: 2702, growth: 0.118 },
        { name: "Other", revenue: 87750, orders: 593, growth: -0.012 },
      ],
      notes: "Figures are before returns. The Danish flagship store was closed for refurbishment from 9 to 14 February.",
    },
    content: {
      type: "container",
      children: [
        { type: "text", text: { path: ["title"] }, className: "title" },
        { type: "text", text: { parts: [{ path: ["company"] }, " · ", { path: ["period"] }] }, className: "subtitle" },
        { type: "text", text: { path: ["summary"] }, className: "summary", visibleWhen: { path: ["summary"], operator: "exists" } },
        {
          type: "repeat",
          className: "cards",
          source: { path: ["kpis"] },
          children: [
            {
              type: "container",
              className: "card",
              children: [
                { type: "text", text: { path: ["label"] }, className: "card-label" },
                { type: "text", text: { path: ["value"] }, className: "card-value" },
                { type: "text", text: { path: ["change"] }, className: "card-change" },
              ],
            },
          ],
        },
        { type: "text", text: "Revenue by region", className: "section" },
        {
          type: "table",
          className: "figures",
          source: { expression: "$sort(regions, function($a, $b) { $a.revenue < $b.revenue })" },
          columns: [
            { id: "name", header: "Region", value: { path: ["name"] } },
            { id: "orders", header: "Orders", value: { path: ["orders"], format: { type: "number" } }, width: 80, style: { textAlign: "right" } },
            { id: "revenue", header: "Revenue", value: { path: ["revenue"], format: EUR0 }, width: 110, style: { textAlign: "right" } },
            { id: "share", header: "Share", value: { expression: "revenue / $sum($$.regions.revenue)", format: { type: "percent", maximumFractionDigits: 1 } }, width: 70, style: { textAlign: "right" } },
            { id: "growth", header: "Growth", value: { path: ["growth"], format: { type: "percent", maximumFractionDigits: 1 } }, width: 70, style: { textAlign: "right" } },
          ],
        },
        {
          type: "container",
          className: "total",
          children: [
            { type: "text", text: { parts: ["Total, ", { expression: "$sum(regions.orders)", format: { type: "number" } }, " orders"] } },
            { type: "text", text: { expression: "$sum(regions.revenue)", format: EUR0 } },
          ],
        },
        {
          type: "container",
          className: "notes",
          visibleWhen: { path: ["notes"], operator: "exists" },
          children: [
            { type: "text", text: "Notes", tw: "font-bold mb-1" },
            { type: "text", text: { path: ["notes"] } },
          ],
        },
      ],
    },
    header: {
      type: "container",
      className: "header",
      children: [
        { type: "text", text: { path: ["company"] } },
        { type: "text", text: { parts: [{ path: ["title"] }, " · ", { path: ["period"] }] } },
      ],
    },
    footer: {
      type: "container",
      className: "footer",
      children: [
        { type: "text", text: { parts: ["Prepared by ", { path: ["preparedBy"], fallback: "renderd" }] } },
        { type: "text", text: { parts: ["Page ", { path: ["$page", "number"] }, " of ", { path: ["$page", "count"] }] } },
      ],
    },
  },
};
