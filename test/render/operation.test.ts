/** operation: the PDF operation engine without the server — the refusals with their pointers that the API tests cannot
 * reach (bytes that are no PDF, an input gone before the worker ran, the page and byte limits), and compress never
 * answering a larger file. */
import { describe, expect, test } from "bun:test";
import { PDFDocument } from "pdf-lib";
import { ApiError } from "../../src/errors";
import { compressPdf } from "../../src/pdf/operations/compress";
import { openInput, OperationError, rangeIndexes } from "../../src/pdf/operations/open";
import { runOperation, type OperationJob } from "../../src/render/operation";
import { checkOptions } from "../../src/render/operation-options";

async function blank(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage();
  return doc.save();
}

const pointer = async (work: Promise<unknown>) => {
  try {
    await work;
  } catch (e) {
    if (e instanceof OperationError) return e.path;
    throw e;
  }
  throw new Error("no OperationError");
};

const job = (operation: OperationJob["operation"], options: OperationJob["options"] = {}, inputs = 1): OperationJob => ({
  operation,
  options,
  inputs: Array.from({ length: inputs }, (_, i) => ({ area: "assets" as const, sha256: `sha${i}`, title: `in${i}.pdf` })),
});

describe("the operation engine", () => {
  test("bytes that are no PDF are refused at the input; ranges are checked", async () => {
    expect(await pointer(openInput(new TextEncoder().encode("<xml/>"), "/inputs/2"))).toBe("/inputs/2");
    expect(rangeIndexes(["2", "1-2", "2-"], 3)).toEqual([[1], [0, 1], [1, 2]]);
    expect(() => rangeIndexes(["4-"], 3)).toThrow(OperationError);
  });

  test("an input gone before the worker ran fails at its pointer", async () => {
    const read = async () => null;
    expect(await pointer(runOperation(job("flatten"), { read, maxPages: 10, maxOutputBytes: 1e9 }))).toBe("/inputs/0");
  });

  test("inputs and results count against RENDER_MAX_PAGES and RENDER_MAX_OUTPUT_BYTES", async () => {
    const pdf = await blank(3);
    const read = async () => pdf;
    const limit = async (work: Promise<unknown>) => {
      try {
        await work;
      } catch (e) {
        if (e instanceof ApiError) return e.code;
      }
      return "none";
    };
    expect(await limit(runOperation(job("merge", {}, 2), { read, maxPages: 5, maxOutputBytes: 1e9 }))).toBe("LIMIT_EXCEEDED");
    expect(await limit(runOperation(job("rotate", { angle: 90 }), { read, maxPages: 5, maxOutputBytes: 100 }))).toBe("LIMIT_EXCEEDED");
    expect((await runOperation(job("merge", {}, 2), { read, maxPages: 6, maxOutputBytes: 1e9 })).outputs[0]!.pages).toBe(6);
  });

  test("compress answers the input itself when it cannot make it smaller", async () => {
    const tiny = await blank(1);
    const out = await compressPdf(tiny);
    expect(out.byteLength).toBeLessThanOrEqual(tiny.byteLength);
  });

  test("checkOptions: what each operation takes", () => {
    const input = [{ assetId: "ast_a" }];
    expect(checkOptions("rotate", input, { angle: 90 })).toEqual([]);
    expect(checkOptions("rotate", input, {}).map((p) => p.path)).toEqual(["/angle"]);
    expect(checkOptions("compress", input, { dpi: 100, bookmarks: true }).map((p) => p.path)).toEqual(["/bookmarks"]);
    expect(checkOptions("watermark", input, { text: "X", assetId: "ast_i" }).map((p) => p.path)).toEqual(["/text"]);
    expect(checkOptions("merge", [...input, { renderId: "rnd_b", title: "B" }], {})).toEqual([]);
    expect(checkOptions("split", [{ assetId: "ast_a", title: "x" }], { ranges: ["1"] }).map((p) => p.path)).toEqual(["/inputs/0/title"]);
  });
});
