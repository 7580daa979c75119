/** subscribe: a workspace's endpoint for every end event, on a real receiver — what makes a render's end event a row
 * tests can read: renderd writes an event only for the endpoints that receive it. */
import { expect } from "bun:test";
import { EVENT_TYPES } from "../../src/webhooks/events";
import type { TestServer } from "../harness";
import { startReceiver, type Receiver } from "./receiver";

/** subscribeToEnds subscribes a new receiver to every end event of `workspaceId`; the caller stops the receiver. */
export async function subscribeToEnds(server: TestServer, workspaceId: string): Promise<Receiver> {
  const receiver = startReceiver();
  const key = await server.makeKey(workspaceId, ["webhook:manage"]);
  const res = await server.call("/v1/webhook-endpoints", { key, body: { url: `${receiver.url}/ends`, eventTypes: [...EVENT_TYPES] } });
  expect(res.status).toBe(201);
  return receiver;
}
