/** xmp: the XMP metadata packet of a finished PDF — the same facts as its information dictionary (ISO 16684-1). */
import type { PdfMetadata, PdfStandard } from "./pdf-options";

/** XmpFacts are what the packet states. */
export type XmpFacts = PdfMetadata & { title: string; producer: string; created: Date; modified: Date; standard?: PdfStandard };

const escapeXml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

const altText = (name: string, text: string) => `<${name}><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(text)}</rdf:li></rdf:Alt></${name}>`;

/** xmpPacket answers the packet as XML text. */
export function xmpPacket(facts: XmpFacts): string {
  const fields = [
    altText("dc:title", facts.title),
    facts.author !== undefined ? `<dc:creator><rdf:Seq><rdf:li>${escapeXml(facts.author)}</rdf:li></rdf:Seq></dc:creator>` : "",
    facts.subject !== undefined ? altText("dc:description", facts.subject) : "",
    facts.language !== undefined ? `<dc:language><rdf:Bag><rdf:li>${escapeXml(facts.language)}</rdf:li></rdf:Bag></dc:language>` : "",
    facts.keywords !== undefined ? `<pdf:Keywords>${escapeXml(facts.keywords.join(", "))}</pdf:Keywords>` : "",
    `<pdf:Producer>${escapeXml(facts.producer)}</pdf:Producer>`,
    `<xmp:CreatorTool>${escapeXml(facts.producer)}</xmp:CreatorTool>`,
    `<xmp:CreateDate>${facts.created.toISOString()}</xmp:CreateDate>`,
    `<xmp:ModifyDate>${facts.modified.toISOString()}</xmp:ModifyDate>`,
    `<xmp:MetadataDate>${facts.modified.toISOString()}</xmp:MetadataDate>`,
    // "PDF/A-3b" is part 3, conformance B.
    facts.standard ? `<pdfaid:part>${facts.standard[6]}</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance>` : "",
  ].filter(Boolean);
  return [
    `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>`,
    `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">`,
    `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">`,
    ...fields,
    `</rdf:Description></rdf:RDF></x:xmpmeta>`,
    `<?xpacket end="w"?>`,
  ].join("\n");
}
