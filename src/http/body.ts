/** http/body: reads a JSON body with a byte cap, so an oversized or malformed body fails in the 7.1 envelope. */
import { ApiError } from "../errors";

/** readJsonBody parses the request body as JSON, refusing more than `maxBytes` (413) or bad JSON (400). */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readText(request, maxBytes);
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError("BAD_REQUEST", "The request body is not valid JSON.", {
      details: [{ path: "", message: (e as Error).message }],
    });
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
