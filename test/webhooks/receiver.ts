/** receiver: a real HTTP webhook receiver on 127.0.0.1 that records every request (STYLE habit 10: no mocks of what we own). */

/** RECEIVER_ENV lets a test server's endpoints be the plain-http receivers on 127.0.0.1 these tests start. */
export const RECEIVER_ENV = { WEBHOOK_ALLOW_HTTP: "1", WEBHOOK_ALLOW_PRIVATE: "1" };

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export type Responder = (request: Request) => Response | Promise<Response>;

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  /** respondWith changes the answer to the next requests (default 204). */
  respondWith(responder: Responder): void;
  stop(): void;
}

/** startReceiver listens on a free port of 127.0.0.1. */
export function startReceiver(responder: Responder = () => new Response(null, { status: 204 })): Receiver {
  let respond = responder;
  const requests: Received[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.text();
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => (headers[name] = value));
      requests.push({ path: new URL(request.url).pathname, headers, body });
      return respond(request);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port!,
    requests,
    respondWith(next) {
      respond = next;
    },
    stop() {
      server.stop(true);
    },
  };
}

/** closedPort answers a port on 127.0.0.1 that nothing listens on (a refused connection). */
export function closedPort(): number {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}
