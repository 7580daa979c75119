/** webhooks/api: TanStack Query hooks for /v1/webhook-endpoints and their deliveries (spec 4.7). */
import { useQuery } from "@tanstack/react-query";
import type {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from "../../../src/modules/webhook-endpoints/model";
import { api, currentWorkspace, type Page } from "../../api/client";
import { useRefreshingMutation } from "../../api/mutation";
import { usePage } from "../../api/page";

const key = () => ["webhooks", currentWorkspace()];

/** useEndpoints lists the workspace's endpoints. */
export function useEndpoints() {
  return usePage<Page<WebhookEndpoint>>([...key(), "list"], "/v1/webhook-endpoints", { limit: 100 });
}

/** useEndpoint reads one endpoint. */
export function useEndpoint(id: string) {
  return useQuery({ queryKey: [...key(), id], queryFn: () => api<WebhookEndpoint>(`/v1/webhook-endpoints/${id}`) });
}

/** useDeliveries lists one page of an endpoint's deliveries, newest first. */
export function useDeliveries(id: string, cursor?: string) {
  return usePage<Page<WebhookDelivery>>([...key(), id, "deliveries"], `/v1/webhook-endpoints/${id}/deliveries`, { cursor, limit: 50 });
}

/** useCreateEndpoint creates an endpoint; its answer carries the signing secret, shown once. */
export function useCreateEndpoint() {
  return useRefreshingMutation(key(), (body: CreateWebhookEndpointBody) => api<WebhookEndpointWithSecret>("/v1/webhook-endpoints", { method: "POST", body }));
}

/** useUpdateEndpoint changes the fields sent. */
export function useUpdateEndpoint(id: string) {
  return useRefreshingMutation(key(), (body: UpdateWebhookEndpointBody) => api<WebhookEndpoint>(`/v1/webhook-endpoints/${id}`, { method: "PATCH", body }));
}

/** useEndpointAction rotates an endpoint's secret (shown once) or deletes the endpoint. */
export function useEndpointAction() {
  return useRefreshingMutation(key(), ({ id, action }: { id: string; action: "rotate" | "delete" }) =>
    action === "delete"
      ? api<WebhookEndpointWithSecret | undefined>(`/v1/webhook-endpoints/${id}`, { method: "DELETE" })
      : api<WebhookEndpointWithSecret>(`/v1/webhook-endpoints/${id}/rotate-secret`, { method: "POST" }));
}
