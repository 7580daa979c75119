/** template-conversions/convert: PDF bytes to a template draft and its sample data — extract, detect (and a model's
 * groups and names), build. */
import type { Logger } from "pino";
import { buildDraft, type Built } from "./build";
import { ConversionFailure, extractPdf } from "./extract";
import { detectWithModel, type NamerOptions } from "./namer";

/** convertPdf converts a PDF; throws ConversionFailure, whose message is the conversion's `error`, when it cannot. */
export async function convertPdf(bytes: Uint8Array, namer: NamerOptions, log: Logger): Promise<Built> {
  const source = await extractPdf(bytes);
  if (source.runs.length === 0) {
    throw new ConversionFailure(
      source.images.length > 0
        ? "The PDF has no text to convert: its pages are images only, as a scan is. Run it through OCR so that it has a text layer, then convert it again."
        : "The PDF has no text to convert: its pages are empty or drawn with shapes only.",
    );
  }
  const found = await detectWithModel(source.runs, namer, log);
  return buildDraft(source, found);
}
