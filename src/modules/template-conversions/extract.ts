/** template-conversions/extract: what a PDF shows, read with pdf.js — text runs with position, size, weight and
 * colour, filled and stroked shapes, images — in points from each page's top left corner. */
import { loadPdfJs } from "./pdfjs";

/** MAX_PAGES bounds the pages one conversion reads (docs/conversions.md "Limits"). */
export const MAX_PAGES = 50;

/** TextRun is one piece of text in one style on one baseline. `top` is the baseline minus the font's ascent. */
export interface TextRun {
  page: number;
  x: number;
  baseline: number;
  width: number;
  fontSize: number;
  fontFamily: string;
  bold: boolean;
  italic: boolean;
  color: string;
  /** The font's ascent and descent in em (descent negative), as the PDF declares them. */
  ascent: number;
  descent: number;
  text: string;
}

/** Shape is a filled area, or the bounding box of a stroked path with its line width. */
export interface Shape {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  color: string;
  paint: "fill" | "stroke";
  lineWidth: number;
}

/** ImageBox is where an image is drawn. */
export interface ImageBox {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Extraction is the whole document as the converter reads it. */
export interface Extraction {
  pages: { width: number; height: number }[];
  runs: TextRun[];
  shapes: Shape[];
  images: ImageBox[];
}

/** ConversionFailure is a PDF the converter cannot turn into a template; its message is the conversion's `error`. */
export class ConversionFailure extends Error {}

type Matrix = [number, number, number, number, number, number];
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

// m1(m2(p)): m2 is applied first, as a PDF `cm` operand is applied before the current matrix.
function multiply(m1: Matrix, m2: Matrix): Matrix {
  return [
    m1[0] * m2[0] + m1[2] * m2[1],
    m1[1] * m2[0] + m1[3] * m2[1],
    m1[0] * m2[2] + m1[2] * m2[3],
    m1[1] * m2[2] + m1[3] * m2[3],
    m1[0] * m2[4] + m1[2] * m2[5] + m1[4],
    m1[1] * m2[4] + m1[3] * m2[5] + m1[5],
  ];
}

function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

const matrixOf = (value: ArrayLike<number>): Matrix => [value[0], value[1], value[2], value[3], value[4], value[5]];

interface GraphicsState {
  ctm: Matrix;
  fill: string;
  stroke: string;
  lineWidth: number;
}

interface TextOrigin {
  x: number;
  y: number;
  color: string;
}

type Ops = Record<string, number>;

// A box in page space (PDF units, y up) from a box in user space under a matrix.
function boxUnder(m: Matrix, x0: number, y0: number, x1: number, y1: number) {
  const corners = [apply(m, x0, y0), apply(m, x1, y0), apply(m, x0, y1), apply(m, x1, y1)];
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}

/** walkOperators reads the operator list of a page: the shapes and images it paints, and where each text is shown in
 * which fill colour (pdf.js's text content has no colours). Coordinates stay in PDF page space. */
function walkOperators(OPS: Ops, fnArray: number[], argsArray: unknown[][]) {
  const paints = new Map<number, "fill" | "stroke">([OPS.fill, OPS.eoFill, OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke].map((op) => [op, "fill"]));
  for (const op of [OPS.stroke, OPS.closeStroke]) paints.set(op, "stroke");
  const imageOps = new Set([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageXObjectRepeat, OPS.paintImageMaskXObject]);
  const shapes: { box: ReturnType<typeof boxUnder>; color: string; paint: "fill" | "stroke"; lineWidth: number }[] = [];
  const images: ReturnType<typeof boxUnder>[] = [];
  const texts: TextOrigin[] = [];
  const stack: GraphicsState[] = [];
  let gs: GraphicsState = { ctm: IDENTITY, fill: "#000000", stroke: "#000000", lineWidth: 1 };
  let tm: Matrix = IDENTITY;
  let tlm: Matrix = IDENTITY;
  let leading = 0;
  const moveText = (tx: number, ty: number) => {
    tlm = multiply(tlm, [1, 0, 0, 1, tx, ty]);
    tm = tlm;
  };
  fnArray.forEach((fn, i) => {
    const args = argsArray[i] ?? [];
    if (fn === OPS.save || fn === OPS.paintFormXObjectBegin) {
      stack.push(gs);
      gs = { ...gs };
      if (fn === OPS.paintFormXObjectBegin && args[0]) gs.ctm = multiply(gs.ctm, matrixOf(args[0] as number[]));
    } else if (fn === OPS.restore || fn === OPS.paintFormXObjectEnd) gs = stack.pop() ?? gs;
    else if (fn === OPS.transform) gs.ctm = multiply(gs.ctm, matrixOf(args as number[]));
    else if (fn === OPS.setFillRGBColor) gs.fill = String(args[0]);
    else if (fn === OPS.setStrokeRGBColor) gs.stroke = String(args[0]);
    else if (fn === OPS.setLineWidth) gs.lineWidth = Number(args[0]);
    else if (fn === OPS.beginText) tm = tlm = IDENTITY;
    else if (fn === OPS.setTextMatrix) tm = tlm = matrixOf(args[0] as number[]);
    else if (fn === OPS.setLeading) leading = Number(args[0]);
    else if (fn === OPS.moveText) moveText(Number(args[0]), Number(args[1]));
    else if (fn === OPS.setLeadingMoveText) {
      leading = -Number(args[1]);
      moveText(Number(args[0]), Number(args[1]));
    } else if (fn === OPS.nextLine || fn === OPS.nextLineShowText || fn === OPS.nextLineSetSpacingShowText) moveText(0, -leading);
    if (fn === OPS.showText || fn === OPS.showSpacedText || fn === OPS.nextLineShowText || fn === OPS.nextLineSetSpacingShowText) {
      const [x, y] = apply(multiply(gs.ctm, tm), 0, 0);
      texts.push({ x, y, color: gs.fill });
    } else if (fn === OPS.constructPath) {
      const paint = paints.get(args[0] as number);
      const minMax = args[2] as ArrayLike<number> | null;
      if (paint && minMax && Number.isFinite(minMax[0])) {
        const scale = Math.hypot(gs.ctm[0], gs.ctm[1]);
        shapes.push({ box: boxUnder(gs.ctm, minMax[0], minMax[1], minMax[2], minMax[3]), color: paint === "fill" ? gs.fill : gs.stroke, paint, lineWidth: gs.lineWidth * scale });
      }
    } else if (imageOps.has(fn)) images.push(boxUnder(gs.ctm, 0, 0, 1, 1));
  });
  return { shapes, images, texts };
}

// The family a browser knows the font by: "ABCDEF+LiberationSans-Bold" → "Liberation Sans".
function familyOf(fontName: string | undefined, generic: string): string {
  const base = (fontName ?? "").replace(/^[A-Z]{6}\+/, "").split(/[-,]/)[0]!.replace(/(PS)?MT$|PS$/, "");
  const spaced = base.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[^A-Za-z0-9 ]/g, "").trim();
  const fallback = ["serif", "sans-serif", "monospace"].includes(generic) ? generic : "sans-serif";
  return spaced ? `"${spaced}", ${fallback}` : fallback;
}

const originKey = (x: number, y: number) => `${Math.round(x)} ${Math.round(y)}`;

/** colorFinder answers the fill colour a text item was shown in: the one of the text shown where the item starts
 * (looked up by the rounded point, else the nearest within 2 points), black when none is. */
function colorFinder(texts: TextOrigin[]): (x: number, y: number) => string {
  const exact = new Map<string, string>();
  for (const t of texts) if (!exact.has(originKey(t.x, t.y))) exact.set(originKey(t.x, t.y), t.color);
  return (x, y) => {
    const found = exact.get(originKey(x, y));
    if (found) return found;
    let best: TextOrigin | undefined;
    let distance = Infinity;
    for (const t of texts) {
      const d = Math.abs(t.x - x) + Math.abs(t.y - y);
      if (d < distance) [best, distance] = [t, d];
    }
    return best && distance < 2 ? best.color : "#000000";
  };
}

/** extractPdf reads every page of a PDF; throws ConversionFailure when the file is not a PDF it can read. */
export async function extractPdf(bytes: Uint8Array): Promise<Extraction> {
  const pdfjs = await loadPdfJs();
  let doc: Awaited<ReturnType<typeof pdfjs.getDocument>["promise"]>;
  try {
    // A plain copy: pdf.js takes the buffer over and refuses a Node Buffer. No fonts are loaded for drawing; no script in the PDF is evaluated.
    doc = await pdfjs.getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  } catch (error) {
    const name = (error as Error).name;
    if (name === "PasswordException") throw new ConversionFailure("The PDF is password-protected; upload a copy without a password.");
    throw new ConversionFailure(`The file could not be read as a PDF (${(error as Error).message}); upload the PDF again.`);
  }
  try {
    if (doc.numPages > MAX_PAGES) throw new ConversionFailure(`The PDF has ${doc.numPages} pages; a conversion reads at most ${MAX_PAGES}.`);
    const out: Extraction = { pages: [], runs: [], shapes: [], images: [] };
    for (let number = 1; number <= doc.numPages; number++) {
      const page = await doc.getPage(number);
      const viewport = page.getViewport({ scale: 1 });
      const pageIndex = number - 1;
      out.pages.push({ width: viewport.width, height: viewport.height });
      const toTop = (x: number, y: number) => viewport.convertToViewportPoint(x, y) as [number, number];
      const toRect = (b: { x0: number; y0: number; x1: number; y1: number }) => {
        const [ax, ay] = toTop(b.x0, b.y0);
        const [bx, by] = toTop(b.x1, b.y1);
        return { page: pageIndex, x: Math.min(ax, bx), y: Math.min(ay, by), width: Math.abs(bx - ax), height: Math.abs(by - ay) };
      };
      // The operator list first: it loads the fonts whose names and weights the text content then refers to.
      const list = await page.getOperatorList();
      const walked = walkOperators(pdfjs.OPS as unknown as Ops, list.fnArray, list.argsArray);
      for (const s of walked.shapes) out.shapes.push({ ...toRect(s.box), color: s.color, paint: s.paint, lineWidth: s.lineWidth });
      for (const b of walked.images) out.images.push(toRect(b));
      const colorAt = colorFinder(walked.texts);
      const content = await page.getTextContent();
      for (const item of content.items) {
        if (!("str" in item) || item.str.trim() === "") continue;
        const [a, b, c, d, e, f] = item.transform as number[];
        // Turned text (a diagonal TEST mark, a vertical margin note) has no place among horizontal text blocks.
        if (Math.abs(b!) > 0.01 * Math.abs(a!) || Math.abs(c!) > 0.01 * Math.abs(d!)) continue;
        const style = content.styles[item.fontName];
        const font = page.commonObjs.has(item.fontName) ? (page.commonObjs.get(item.fontName) as { name?: string; bold?: boolean; black?: boolean; italic?: boolean }) : {};
        const [x, baseline] = toTop(e!, f!);
        out.runs.push({
          page: pageIndex,
          x,
          baseline,
          width: item.width,
          fontSize: Math.round(Math.abs(d!) * 100) / 100,
          fontFamily: familyOf(font.name, style?.fontFamily ?? "sans-serif"),
          bold: Boolean(font.bold || font.black) || /Bold|Black|Heavy|Semibold/i.test(font.name ?? ""),
          italic: Boolean(font.italic) || /Italic|Oblique/i.test(font.name ?? ""),
          color: colorAt(e!, f!),
          ascent: style?.ascent ?? 0.8,
          descent: style?.descent ?? -0.2,
          text: item.str,
        });
      }
      page.cleanup();
      // pdf.js's in-thread worker answers through promises only: give the event loop (requests, the render pool) a turn.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return out;
  } finally {
    await doc.destroy();
  }
}
