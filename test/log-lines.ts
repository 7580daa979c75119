/** log-lines: a real logger whose lines a test reads back, parsed. */
import { Writable } from "node:stream";
import type { Logger } from "pino";
import { createLogger } from "../src/logger";

/** collectedLog answers a logger at `level` and the lines it has written, each parsed from its JSON. */
export function collectedLog(level = "info"): { log: Logger; lines: any[] } {
  const lines: any[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { log: createLogger(level, sink), lines };
}
