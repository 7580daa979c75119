/** tui/live: what the console asks the running server on its internal port (127.0.0.1:INTERNAL_PORT): its live state,
 * the queue held or released (the drain), and its log lines followed as they are written. */
import { Value } from "@sinclair/typebox/value";
import { LiveState } from "../../src/modules/health/internal";

const LIVE_TIMEOUT_MS = 500;
// A Logs tab whose server went away tries again this often (serve restarted, or not started yet).
const RECONNECT_MS = 2000;

/** LogLine is one pino line of serve: its level number, time, message and every other field. */
export interface LogLine {
  level: number;
  time: number;
  msg: string;
  fields: Record<string, unknown>;
}

/** fetchLive asks the internal port for /internal/state; null when nothing (or not renderd) answers in time. */
export async function fetchLive(internalUrl: string): Promise<LiveState | null> {
  try {
    const res = await fetch(`${internalUrl}/internal/state`, { signal: AbortSignal.timeout(LIVE_TIMEOUT_MS) });
    if (!res.ok) return null;
    const body: unknown = await res.json();
    return Value.Check(LiveState, body) ? body : null;
  } catch {
    return null;
  }
}

/** holdQueue holds (drain) or releases serve's render queue; it throws when serve does not answer. */
export async function holdQueue(internalUrl: string, on: boolean): Promise<void> {
  const res = await fetch(`${internalUrl}/internal/${on ? "drain" : "resume"}`, { method: "POST", signal: AbortSignal.timeout(LIVE_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`serve answered HTTP ${res.status} to ${on ? "drain" : "resume"}`);
}

/** parseLogLine reads one NDJSON line of /internal/logs, or null when it is not a pino line. */
export function parseLogLine(text: string): LogLine | null {
  try {
    const { level, time, msg, service: _service, ...fields } = JSON.parse(text) as Record<string, unknown>;
    if (typeof level !== "number") return null;
    return { level, time: typeof time === "number" ? time : Date.now(), msg: typeof msg === "string" ? msg : "", fields };
  } catch {
    return null;
  }
}

/** followLogs calls `onLine` with each of serve's log lines, reconnecting whenever the stream ends, until the answered
 * function is called; `onConnected` is told of each connection, after which serve sends its kept lines again. */
export function followLogs(internalUrl: string, onLine: (line: LogLine) => void, onConnected: () => void): () => void {
  const stop = new AbortController();
  void (async () => {
    while (!stop.signal.aborted) {
      try {
        const res = await fetch(`${internalUrl}/internal/logs`, { signal: stop.signal });
        if (res.ok && res.body) {
          onConnected();
          let rest = "";
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
          for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
            const lines = (rest + chunk.value).split("\n");
            rest = lines.pop() ?? "";
            for (const text of lines) {
              const line = parseLogLine(text);
              if (line) onLine(line);
            }
          }
        }
      } catch {
        // serve is down or went away: try again below
      }
      await Bun.sleep(RECONNECT_MS);
    }
  })();
  return () => stop.abort();
}
