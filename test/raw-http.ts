/** raw-http: requests written byte for byte on a TCP connection, for what fetch will not send — another Host header, none,
 * an absolute-form target, a malformed request line — and the one answer read back as it came. */
import { connect } from "node:net";

export interface RawReply {
  /** The status line's code; 0 when the server closed without answering. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The whole answer as received. */
  text: string;
}

/** rawRequest writes `head` (and `body`), half-closes only when `endAfter` says so, and reads until the server closes the
 * connection or `timeoutMs` passes. */
export function rawRequest(port: number, head: string, options: { body?: string | Uint8Array; endAfter?: boolean; timeoutMs?: number } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), options.timeoutMs ?? 5_000);
    socket.on("connect", () => {
      socket.write(head);
      if (options.body !== undefined) socket.write(options.body);
      if (options.endAfter) socket.end();
    });
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", (e) => (chunks.length ? undefined : reject(e)));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(parse(Buffer.concat(chunks).toString("latin1")));
    });
  });
}

/** requestHead builds a request head: the request line, a Host header unless `host` is null, the other headers. */
export function requestHead(method: string, target: string, host: string | null, headers: Record<string, string> = {}, version = "HTTP/1.1"): string {
  const lines = [`${method} ${target} ${version}`];
  if (host !== null) lines.push(`Host: ${host}`);
  for (const [name, value] of Object.entries({ connection: "close", ...headers })) lines.push(`${name}: ${value}`);
  return lines.join("\r\n") + "\r\n\r\n";
}

function parse(text: string): RawReply {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return { status: 0, headers: {}, body: "", text };
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  if (headers["transfer-encoding"] === "chunked") body = unchunk(body);
  return { status: Number(statusLine!.split(" ")[1]), headers, body, text };
}

function unchunk(body: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf("\r\n", at);
    const size = parseInt(body.slice(at, lineEnd), 16);
    if (!(size > 0)) return out;
    out += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
