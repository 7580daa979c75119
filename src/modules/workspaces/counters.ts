/** workspaces/counters: the usage counters of spec 2.3, read live from the rows that make them up. */
import type { Clock } from "../../lib/clock";
import type { Store } from "../../store/open";
import { storedBytes } from "../assets/service";
import type { UsageCounters } from "./model";

/** usageCounters answers a workspace's counters now. Renders and template conversions do not exist yet in this
 * store (issue 4 adds them and their sums here), so those counters are 0; storageBytes sums uploaded assets. */
export function usageCounters(store: Store, _clock: Clock, workspaceId: string): UsageCounters {
  return { documentsThisMonth: 0, storageBytes: storedBytes(store, workspaceId), testRendersToday: 0, templateConversionsThisMonth: 0 };
}
