import { describe, expect, test } from "bun:test";
import { contentCheck, svgProblem, SVG_HEAD_BYTES } from "../../../src/modules/assets/content";
import { MEDIA_TYPES, type MediaType } from "../../../src/modules/assets/model";

const bytes = (...parts: (number[] | string)[]) => Uint8Array.from(parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : p)));

/** check feeds the bytes in chunks of `piece` (so signatures and characters straddle chunk boundaries). */
function check(mediaType: MediaType, data: Uint8Array, piece = 1): string | null {
  const c = contentCheck(mediaType);
  for (let i = 0; i < data.length; i += piece) c.update(data.subarray(i, i + piece));
  return c.finish();
}

describe("magic bytes", () => {
  test.each([
    ["image/png", bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])],
    ["image/jpeg", bytes([0xff, 0xd8, 0xff, 0xe0])],
    ["font/woff2", bytes("wOF2", [0, 1, 0, 0])],
    ["font/ttf", bytes([0, 1, 0, 0, 0, 12])],
    ["font/ttf", bytes("true", [0, 12])],
    ["font/otf", bytes("OTTO", [0, 12])],
    ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", bytes("PK", [3, 4, 20, 0])],
    ["application/pdf", bytes("%PDF-1.7\n")],
  ] as Array<[MediaType, Uint8Array]>)("%s accepts its signature, whole or split into single bytes", (mediaType, data) => {
    expect(check(mediaType, data, 1)).toBeNull();
    expect(check(mediaType, data, 1000)).toBeNull();
  });

  test.each([
    ["image/png", bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0b])],
    ["image/png", bytes([0x89, 0x50, 0x4e])],
    ["image/jpeg", bytes([0xff, 0xd8, 0xfe])],
    ["font/woff2", bytes("wOFF")],
    ["font/ttf", bytes("OTTO")],
    ["font/otf", bytes([0, 1, 0, 0])],
    ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", bytes("PK", [5, 6])],
    ["application/pdf", bytes(" %PDF-1.7")],
  ] as Array<[MediaType, Uint8Array]>)("%s refuses other starts", (mediaType, data) => {
    expect(check(mediaType, data)).toContain("does not start like");
  });

  test("every media type has a check", () => {
    for (const m of MEDIA_TYPES) expect(() => contentCheck(m)).not.toThrow();
  });
});

describe("text/css", () => {
  test("UTF-8 text with multi-byte characters split across chunks is accepted", () => {
    expect(check("text/css", bytes("a::after { content: \"✓ ü 𝄞\" }"), 1)).toBeNull();
    expect(check("text/css", bytes("\uFEFFbody{}"), 3)).toBeNull();
  });
  test("a NUL byte is refused", () => {
    expect(check("text/css", bytes("body {", [0], "}"), 4)).toContain("NUL byte at offset 6");
  });
  test("invalid UTF-8 is refused, also when the file ends inside a character", () => {
    expect(check("text/css", bytes("a", [0xff], "b"))).toContain("not valid UTF-8");
    expect(check("text/css", bytes("a", [0xe2, 0x9c]))).toContain("ends inside a character");
  });
});

describe("text/xml and application/xml", () => {
  test("UTF-8 XML starting with its declaration or its root element is accepted, split or whole", () => {
    for (const mediaType of ["text/xml", "application/xml"] as const) {
      expect(check(mediaType, bytes('<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice>ü</rsm:CrossIndustryInvoice>'), 1)).toBeNull();
      expect(check(mediaType, bytes("\uFEFF\n  <Invoice/>"), 1000)).toBeNull();
    }
  });
  test("text that is not markup, a NUL byte or invalid UTF-8 is refused", () => {
    expect(check("text/xml", bytes("number;total\n42;100"))).toContain("is not an XML document");
    expect(check("text/xml", bytes("<a>", [0], "</a>"))).toContain("NUL byte");
    expect(check("application/xml", bytes("<a>", [0xff], "</a>"))).toContain("not valid UTF-8");
  });
});

describe("image/svg+xml", () => {
  test.each([
    '<svg xmlns="http://www.w3.org/2000/svg"/>',
    "<svg>",
    '\uFEFF  \n<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<svg viewBox="0 0 1 1"></svg>',
    '<?xml version="1.0"?><?xml-stylesheet href="a.css"?><!-- made by hand --><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg/>',
    "<!-- a > b --><!doctype svg>\n\t<svg\n>",
  ])("accepts %j", (text) => {
    expect(svgProblem(text)).toBeNull();
    expect(check("image/svg+xml", bytes(text), 2)).toBeNull();
  });

  test.each([
    ["html", "<html><svg/></html>"],
    ["an element merely starting with svg", "<svgx/>"],
    ["text before the root", "hello <svg/>"],
    ["an unterminated comment", "<!-- <svg/>"],
    ["an empty file", ""],
  ])("refuses %s", (_, text) => {
    expect(svgProblem(text)).toContain("first element must be <svg>");
  });

  test("refuses a DOCTYPE with an internal subset (entity expansion)", () => {
    const lol = '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><svg>&lol2;</svg>';
    expect(svgProblem(lol)).toContain("internal subset");
  });

  test("the <svg> root must start within the first 64 KiB; NUL bytes and bad UTF-8 are refused", () => {
    const late = `<!--${"x".repeat(SVG_HEAD_BYTES)}--><svg/>`;
    expect(check("image/svg+xml", bytes(late), 4096)).toContain("first element must be <svg>");
    expect(check("image/svg+xml", bytes("<svg>", [0], "</svg>"))).toContain("NUL");
    expect(check("image/svg+xml", bytes("<svg>", [0xc3], "</svg>"))).toContain("UTF-8");
  });
});
