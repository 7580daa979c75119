/** logger: pino JSON lines; secrets are censored by field name so a careless field never reaches the log. */
import pino, { type Logger } from "pino";
import { isObject } from "./lib/is-object";
import type { LogTail } from "./lib/log-tail";

/** Fields that hold a secret, at a line's top level or one level down (`{ endpoint: { secret } }`,
 * `{ headers: { cookie } }`). */
const SECRET_FIELDS = new Set(["secret", "password", "pkcs12", "token", "cookie", "x-api-key", "uploadUrl", "downloadUrl"]);
const CENSOR = "[redacted]";

/** copyOf answers a shallow copy of `value` with its prototype: an error stays an error for pino's error serializer,
 * with its message and stack (not enumerable, so a spread would lose them). */
function copyOf(value: Record<string, unknown>): Record<string, unknown> {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(value)) as Record<string, unknown>, value);
  if (value instanceof Error) Object.assign(copy, { message: value.message, stack: value.stack });
  return copy;
}

/** censored answers a line's fields with every secret field's value replaced, copying only what it changes (the
 * caller's objects are never written to); a line without one, nearly every line, is answered as given. pino's own
 * `redact` did this with `*.secret`-style paths, which its redactor parses again on every line: half the cost of a
 * render's two lines (docs/performance.md, "The log's redaction"). */
function censored(fields: Record<string, unknown>): Record<string, unknown> {
  let out = fields;
  for (const key in fields) {
    const value = fields[key];
    let replaced: unknown = value;
    if (SECRET_FIELDS.has(key)) replaced = CENSOR;
    else if (isObject(value)) {
      for (const inner in value) {
        if (!SECRET_FIELDS.has(inner)) continue;
        if (replaced === value) replaced = copyOf(value);
        (replaced as Record<string, unknown>)[inner] = CENSOR;
      }
    }
    if (replaced === value) continue;
    if (out === fields) out = { ...fields };
    out[key] = replaced;
  }
  return out;
}

/** createLogger gives the process logger at LOG_LEVEL, writing to stdout (or `destination`), and every line to `tail`
 * too when one is given (the lines `renderd tui` follows). */
export function createLogger(level: string, destination?: pino.DestinationStream, tail?: LogTail): Logger {
  const options = { level, base: { service: "renderd" }, formatters: { log: censored } };
  if (!tail || level === "silent") return pino(options, destination);
  const streams = [{ level: level as pino.Level, stream: destination ?? pino.destination(1) }, { level: level as pino.Level, stream: tail }];
  return pino(options, pino.multistream(streams));
}
