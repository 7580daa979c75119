/** starters/letter: a business letter — letterhead, recipient's address, date, subject, paragraphs from a list, and a
 * signature; a footer with the sender's details and the page number. */
import type { TemplateStarter } from "../model";

/** LETTER is the letter starter. */
export const LETTER: TemplateStarter = {
  id: "letter",
  name: "Letter",
  description: "A business letter: letterhead, recipient's address, date, subject, paragraphs, closing and signature, with the sender's details and the page number in the footer.",
  source: {
    page: { size: "A4", margin: { top: "20mm", right: "22mm", bottom: "24mm", left: "25mm" } },
    stylesheet: `body { font-family: "Liberation Serif", "Times New Roman", serif; font-size: 11.5pt; color: #111827; line-height: 1.5; }
.letterhead { display: flex; justify-content: space-between; align-items: flex-end; padding-bottom: 4mm; border-bottom: 1px solid #0f766e; margin-bottom: 14mm; }
.sender-name { font-family: "Liberation Sans", Arial, sans-serif; font-size: 16pt; font-weight: bold; color: #0f766e; letter-spacing: 0.02em; }
.contact { font-family: "Liberation Sans", Arial, sans-serif; font-size: 8.5pt; color: #4b5563; text-align: right; white-space: pre-line; }
.return-line { font-family: "Liberation Sans", Arial, sans-serif; font-size: 7.5pt; color: #6b7280; text-decoration: underline; margin-bottom: 2mm; }
.address { white-space: pre-line; }
.date { text-align: right; margin: 10mm 0 8mm; }
.subject { font-weight: bold; margin-bottom: 6mm; }
.paragraph { margin-bottom: 4mm; text-align: justify; }
.closing { margin-top: 8mm; }
.signature { margin-top: 14mm; font-weight: bold; }
.role { color: #4b5563; }
.footer { box-sizing: border-box; display: flex; justify-content: space-between; width: 100%; padding: 0 22mm 0 25mm; font-family: "Liberation Sans", Arial, sans-serif; font-size: 7.5pt; color: #6b7280; }`,
    dataSchema: {
      type: "object",
      required: ["sender", "recipient", "date", "subject", "salutation", "paragraphs", "closing"],
      properties: {
        sender: {
          type: "object",
          required: ["name", "address"],
          properties: { name: { type: "string" }, address: { type: "string" }, phone: { type: "string" }, email: { type: "string" }, signatory: { type: "string" }, role: { type: "string" } },
        },
        recipient: { type: "object", required: ["name", "address"], properties: { name: { type: "string" }, address: { type: "string" } } },
        date: { type: "string" },
        subject: { type: "string" },
        salutation: { type: "string" },
        paragraphs: { type: "array", items: { type: "string" } },
        closing: { type: "string" },
      },
    },
    sampleData: {
      sender: {
        name: "Harbour & Pine Architects",
        address: "14 Quay Street, Bristol BS1 4DJ",
        phone: "+44 117 496 0123",
        email: "studio@harbourpine.example",
        signatory: "Eleanor Whitfield",
        role: "Managing Partner",
      },
      recipient: { name: "Mr Daniel Osei", address: "Osei Family Trust\n22 Clifton Park Road\nBristol BS8 3HL" },
      date: "2026-03-09",
      subject: "Your extension at 22 Clifton Park Road: proposal and next steps",
      salutation: "Dear Mr Osei,",
      paragraphs: [
        "Thank you for meeting us at the house last Thursday. It was a pleasure to walk through the garden with you and to hear how your family hopes to use the new space.",
        "As discussed, we propose a single-storey extension to the rear of the house, opening the kitchen onto the garden with a wide glazed wall. The enclosed drawings show the layout, and the schedule sets out the stages from planning application to completion.",
        "Our fee for the design and planning stages is fixed at £8,400 plus VAT. Should you wish to go ahead, we would submit the planning application within four weeks of your confirmation.",
        "Please do not hesitate to call me if you have any questions. We look forward to working with you.",
      ],
      closing: "Yours sincerely,",
    },
    content: {
      type: "container",
      children: [
        {
          type: "container",
          className: "letterhead",
          children: [
            { type: "text", text: { path: ["sender", "name"] }, className: "sender-name" },
            {
              type: "text",
              className: "contact",
              text: { parts: [{ path: ["sender", "address"] }, "\n", { path: ["sender", "phone"] }, " · ", { path: ["sender", "email"] }] },
            },
          ],
        },
        { type: "text", text: { parts: [{ path: ["sender", "name"] }, " · ", { path: ["sender", "address"] }] }, className: "return-line" },
        { type: "text", text: { path: ["recipient", "name"] } },
        { type: "text", text: { path: ["recipient", "address"] }, className: "address" },
        { type: "text", text: { path: ["date"], format: { type: "date", dateStyle: "long", locale: "en-GB" } }, className: "date" },
        { type: "text", text: { path: ["subject"] }, className: "subject" },
        { type: "text", text: { path: ["salutation"] }, tw: "mb-4" },
        { type: "repeat", source: { path: ["paragraphs"] }, children: [{ type: "text", text: { expression: "$" }, className: "paragraph" }] },
        { type: "text", text: { path: ["closing"] }, className: "closing" },
        { type: "text", text: { path: ["sender", "signatory"] }, className: "signature" },
        { type: "text", text: { path: ["sender", "role"] }, className: "role" },
      ],
    },
    footer: {
      type: "container",
      className: "footer",
      children: [
        { type: "text", text: { parts: [{ path: ["sender", "name"] }, " · ", { path: ["sender", "address"] }] } },
        { type: "text", text: { parts: ["Page ", { path: ["$page", "number"] }, " of ", { path: ["$page", "count"] }] } },
      ],
    },
  },
};
