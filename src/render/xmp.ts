/** xmp: the XMP metadata packet of a finished PDF — the same facts as its information dictionary (ISO 16684-1). */
import { FACTURX_FILE_NAME, type FacturX, type PdfMetadata, type PdfStandard } from "./pdf-options";

/** XmpFacts are what the packet states. */
export type XmpFacts = PdfMetadata & { title: string; producer: string; created: Date; modified: Date; standard?: PdfStandard; facturX?: FacturX };

const FACTURX_NS = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#";

// PDF/A allows XMP properties outside its predefined schemas only when the packet describes them (ISO 19005-1 6.7.8):
// the Factur-X 1.0.07 extension schema, with its four properties, all Text and external.
const FACTURX_PROPERTIES: [name: string, description: string][] = [
  ["DocumentFileName", "The name of the embedded XML document"],
  ["DocumentType", "The type of the hybrid document in capital letters, e.g. INVOICE or ORDER"],
  ["Version", "The actual version of the standard applying to the embedded XML document"],
  ["ConformanceLevel", "The conformance level of the embedded XML document"],
];

/** facturXDescriptions are the packet's Factur-X parts: the extension schema and the invoice's fx: facts. */
function facturXDescriptions(facturX: FacturX): string[] {
  const property = ([name, description]: [string, string]) =>
    `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${name}</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>${description}</pdfaProperty:description></rdf:li>`;
  return [
    `<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">`,
    `<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">`,
    `<pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema><pdfaSchema:namespaceURI>${FACTURX_NS}</pdfaSchema:namespaceURI><pdfaSchema:prefix>fx</pdfaSchema:prefix>`,
    `<pdfaSchema:property><rdf:Seq>${FACTURX_PROPERTIES.map(property).join("")}</rdf:Seq></pdfaSchema:property>`,
    `</rdf:li></rdf:Bag></pdfaExtension:schemas></rdf:Description>`,
    `<rdf:Description rdf:about="" xmlns:fx="${FACTURX_NS}">`,
    `<fx:DocumentType>INVOICE</fx:DocumentType><fx:DocumentFileName>${FACTURX_FILE_NAME}</fx:DocumentFileName><fx:Version>1.0</fx:Version><fx:ConformanceLevel>${escapeXml(facturX.conformanceLevel)}</fx:ConformanceLevel>`,
    `</rdf:Description>`,
  ];
}

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
    `</rdf:Description>`,
    ...(facts.facturX ? facturXDescriptions(facts.facturX) : []),
    `</rdf:RDF></x:xmpmeta>`,
    `<?xpacket end="w"?>`,
  ].join("\n");
}
