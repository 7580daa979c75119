/** starters/certificate: a certificate of completion on a landscape A4 sheet with a framed border, the recipient's
 * name large, the course, date and two signatures; the footer carries the certificate's id. */
import type { TemplateStarter } from "../model";

/** CERTIFICATE is the certificate starter. */
export const CERTIFICATE: TemplateStarter = {
  id: "certificate",
  name: "Certificate",
  description: "A certificate of completion: a framed landscape page with the recipient's name, the course, its date and hours, two signatures, and the certificate's id in the footer.",
  source: {
    page: { size: "A4", orientation: "landscape", margin: { top: "12mm", right: "12mm", bottom: "16mm", left: "12mm" } },
    stylesheet: `body { font-family: "P052", "Palatino Linotype", "Liberation Serif", serif; color: #1f2937; }
.frame { box-sizing: border-box; height: 178mm; border: 3px double #92400e; padding: 3mm; }
.inner { box-sizing: border-box; height: 100%; border: 1px solid #d6b98c; padding: 14mm 24mm 10mm; text-align: center; display: flex; flex-direction: column; align-items: center; }
.organisation { font-family: "Liberation Sans", Arial, sans-serif; font-size: 10pt; letter-spacing: 0.3em; text-transform: uppercase; color: #92400e; }
.title { font-size: 34pt; margin-top: 8mm; color: #111827; letter-spacing: 0.02em; }
.lead { font-size: 13pt; font-style: italic; margin-top: 8mm; color: #4b5563; }
.recipient { font-size: 30pt; margin-top: 4mm; padding: 0 12mm 2mm; border-bottom: 1px solid #d6b98c; color: #78350f; }
.course { font-size: 16pt; font-weight: bold; margin-top: 4mm; }
.details { font-size: 11pt; color: #4b5563; margin-top: 2mm; }
.signatures { display: flex; justify-content: space-between; width: 100%; margin-top: auto; }
.signature { width: 70mm; border-top: 1px solid #6b7280; padding-top: 2mm; font-size: 10pt; }
.signature-role { font-family: "Liberation Sans", Arial, sans-serif; font-size: 8pt; color: #6b7280; }
.footer { box-sizing: border-box; width: 100%; text-align: center; padding: 0 12mm; font-family: "Liberation Sans", Arial, sans-serif; font-size: 7.5pt; color: #92400e; letter-spacing: 0.05em; }`,
    dataSchema: {
      type: "object",
      required: ["organisation", "recipient", "course", "completedOn", "certificateId", "signatories"],
      properties: {
        organisation: { type: "string" },
        recipient: { type: "string" },
        course: { type: "string" },
        hours: { type: "number" },
        completedOn: { type: "string" },
        certificateId: { type: "string" },
        signatories: {
          type: "array",
          items: { type: "object", required: ["name", "role"], properties: { name: { type: "string" }, role: { type: "string" } } },
        },
      },
    },
    sampleData: {
      organisation: "Meridian Academy of Data",
      recipient: "Amelia Rosário",
      course: "Applied Statistics for Product Teams",
      hours: 32,
      completedOn: "2026-02-27",
      certificateId: "MAD-2026-0318",
      signatories: [
        { name: "Dr. Jonas Lindqvist", role: "Course Director" },
        { name: "Priya Natarajan", role: "Head of Learning" },
      ],
    },
    content: {
      type: "container",
      className: "frame",
      children: [
        {
          type: "container",
          className: "inner",
          children: [
            { type: "text", text: { path: ["organisation"] }, className: "organisation" },
            { type: "text", text: "Certificate of Completion", className: "title" },
            { type: "text", text: "This is to certify that", className: "lead" },
            { type: "text", text: { path: ["recipient"] }, className: "recipient" },
            { type: "text", text: "has successfully completed the course", className: "lead", tw: "mt-5" },
            { type: "text", text: { path: ["course"] }, className: "course" },
            {
              type: "text",
              className: "details",
              text: { parts: [{ path: ["hours"], suffix: " hours · " }, "completed on ", { path: ["completedOn"], format: { type: "date", dateStyle: "long", locale: "en-GB" } }] },
            },
            {
              type: "repeat",
              className: "signatures",
              source: { path: ["signatories"] },
              children: [
                {
                  type: "container",
                  className: "signature",
                  children: [
                    { type: "text", text: { path: ["name"] } },
                    { type: "text", text: { path: ["role"] }, className: "signature-role" },
                  ],
                },
              ],
            },
          ],
        },
      ],
    },
    footer: {
      type: "text",
      className: "footer",
      text: { parts: ["Certificate ", { path: ["certificateId"] }, " · issued by ", { path: ["organisation"] }] },
    },
  },
};
