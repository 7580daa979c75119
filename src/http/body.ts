/** http/body: reads a JSON body with a byte cap and a nesting cap, so an oversized, too deep or malformed body fails in
 * the 7.1 envelope before anything walks it. */
import { ApiError } from "../errors";

/** MAX_JSON_DEPTH bounds how deeply arrays and objects nest in a request body, counted from the body itself (the body's
 * own object is depth 1). Validation and error formatting walk a value recursively, so a deeper body would exhaust the
 * stack and stall every other request (issue 16); no render request, template or data document needs half of it. */
export const MAX_JSON_DEPTH = 64;

/** readJsonBody parses the request body as JSON, refusing more than `maxBytes` (413), nesting deeper than
 * MAX_JSON_DEPTH or bad JSON (400). */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  // Bun reads no more than a declared length, so such a body is read whole, in one call (~0.04 ms less than its chunks
  // one by one, for a 3 kB render request); one without (chunked) is counted chunk by chunk.
  const text = Number.isInteger(declared) ? await request.text() : await readText(request, maxBytes);
  if (text.trim() === "") return undefined;
  checkDepth(text, MAX_JSON_DEPTH);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError("BAD_REQUEST", "The request body is not valid JSON.", {
      details: [{ path: "", message: (e as Error).message }],
    });
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** checkDepth throws 400 when arrays and objects in `text` nest deeper than `max`, brackets inside strings aside. One
 * pass in constant stack, before JSON.parse: it needs the text to be JSON only as far as strings go (a malformed body
 * is JSON.parse's to refuse). */
export function checkDepth(text: string, max: number): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max)
        throw new ApiError("BAD_REQUEST", `The request body nests arrays and objects more than ${max} levels deep; flatten it to at most ${max}.`, {
          details: [{ path: "", message: `nests deeper than ${max} levels` }],
        });
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
}

async function readText(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let total = 0;
  // A chunked body has no content-length: count while reading and stop at the cap.
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError("LIMIT_EXCEEDED", `The request body is larger than ${maxBytes} bytes (RENDER_MAX_INPUT_BYTES).`);
}
