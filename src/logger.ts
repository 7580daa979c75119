/** logger: pino JSON lines; secrets are redacted by path so a careless field never reaches the log. */
import pino, { type Logger } from "pino";
import type { LogTail } from "./lib/log-tail";

const REDACT = [
  "secret",
  "*.secret",
  "password",
  "*.password",
  "pkcs12",
  "*.pkcs12",
  "token",
  "*.token",
  "headers.cookie",
  "headers['x-api-key']",
  "*.uploadUrl",
  "*.downloadUrl",
];

/** createLogger gives the process logger at LOG_LEVEL, writing to stdout (or `destination`), and every line to `tail`
 * too when one is given (the lines `renderd tui` follows). */
export function createLogger(level: string, destination?: pino.DestinationStream, tail?: LogTail): Logger {
  const options = { level, base: { service: "renderd" }, redact: { paths: REDACT, censor: "[redacted]" } };
  if (!tail || level === "silent") return pino(options, destination);
  const streams = [{ level: level as pino.Level, stream: destination ?? pino.destination(1) }, { level: level as pino.Level, stream: tail }];
  return pino(options, pino.multistream(streams));
}
