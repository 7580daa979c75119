/** workspaces/counters: a workspace's usage counters now (spec 2.3), read from the ledger and its stored assets. */
import type { Clock } from "../../lib/clock";
import { dayOf, monthOf, readCounter } from "../../ledger/counters";
import type { Store } from "../../store/store";
import { storedBytes } from "../assets/service";
import { conversionsThisMonth } from "../template-conversions/service";
import type { UsageCounters } from "./model";

/** usageCounters answers a workspace's counters now. */
export function usageCounters(store: Store, clock: Clock, workspaceId: string): UsageCounters {
  const now = clock.now();
  return {
    documentsThisMonth: readCounter(store, workspaceId, "documents", monthOf(now)),
    storageBytes: storedBytes(store, workspaceId),
    testRendersToday: readCounter(store, workspaceId, "test_renders", dayOf(now)),
    templateConversionsThisMonth: conversionsThisMonth(store, clock, workspaceId),
  };
}
