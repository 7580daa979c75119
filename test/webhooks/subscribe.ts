/** subscribe: a workspace's endpoint for every end event, on a real receiver — what makes a render's end event a row
 * tests can read: renderd writes an event only for the endpoints that receive it. */
import { expect } from "bun:test";
import { EVENT_TYPES } from "../../src/webhooks/events";
import type { TestServer } from "../harness";
import { startReceiver, type Receiver } from "./receiver";

/** RECEIVER_ENV lets a test server's endpoints be the plain-http receivers on 127.0.0.1 these tests start. */
export const RECEIVER_ENV = { WEBHOOK_ALLOW_HTTP: "1", WEBHOOK_ALLOW_PRIVATE: "1" };

/** subscribeToEnds subscribes a new receiver to every end event of `workspaceId`; the caller stops the receiver. */
export async function subscribeToEnds(server: TestServer, workspaceId: string): Promise<Receiver> {
  const receiver = startReceiver();
  const key = await server.makeKey(workspaceId, ["webhook:manage"]);
  const res = await server.call("/v1/webhook-endpoints", { key, body: { url: `${receiver.url}/ends`, eventTypes: [...EVENT_TYPES] } });
  expect(res.status).toBe(201);
  return receiver;
}
