/** logger: pino JSON lines; secrets are redacted by path so a careless field never reaches the log. */
import pino, { type Logger } from "pino";

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

/** createLogger gives the process logger at LOG_LEVEL, writing to stdout (or `destination`). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { service: "renderd" }, redact: { paths: REDACT, censor: "[redacted]" } }, destination);
}
