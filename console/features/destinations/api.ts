/** destinations/api: TanStack Query hooks for /v1/destinations, their test and their deliveries (docs/destinations.md). */
import { useQuery } from "@tanstack/react-query";
import type { CreateDestinationBody, Destination, DestinationDelivery, DestinationTestResult, UpdateDestinationBody } from "../../../src/modules/destinations/model";
import { api, currentWorkspace, type Page } from "../../api/client";
import { useRefreshingMutation } from "../../api/mutation";
import { usePage } from "../../api/page";

const key = () => ["destinations", currentWorkspace()];

/** useDestinations lists the workspace's destinations. */
export function useDestinations() {
  return usePage<Page<Destination>>([...key(), "list"], "/v1/destinations", { limit: 100 });
}

/** useDestination reads one destination (credentials masked). */
export function useDestination(id: string) {
  return useQuery({ queryKey: [...key(), id], queryFn: () => api<Destination>(`/v1/destinations/${id}`) });
}

/** useDestinationDeliveries lists one page of a destination's deliveries, newest first. */
export function useDestinationDeliveries(id: string, cursor?: string) {
  return usePage<Page<DestinationDelivery>>([...key(), id, "deliveries"], `/v1/destinations/${id}/deliveries`, { cursor, limit: 50 });
}

/** useCreateDestination creates a destination. */
export function useCreateDestination() {
  return useRefreshingMutation(key(), (body: CreateDestinationBody) => api<Destination>("/v1/destinations", { method: "POST", body }));
}

/** useUpdateDestination renames it or changes the config fields sent. */
export function useUpdateDestination(id: string) {
  return useRefreshingMutation(key(), (body: UpdateDestinationBody) => api<Destination>(`/v1/destinations/${id}`, { method: "PATCH", body }));
}

/** useDestinationAction writes a test file to a destination, or deletes it. */
export function useDestinationAction() {
  return useRefreshingMutation(key(), ({ id, action }: { id: string; action: "test" | "delete" }) =>
    action === "delete"
      ? api<DestinationTestResult | undefined>(`/v1/destinations/${id}`, { method: "DELETE" })
      : api<DestinationTestResult>(`/v1/destinations/${id}/test`, { method: "POST" }));
}
