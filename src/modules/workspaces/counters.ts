/** workspaces/counters: the usage counters of spec 2.3, read live from the rows that make them up. */
import type { Clock } from "../../lib/clock";
import type { Store } from "../../store/open";
import type { UsageCounters } from "./model";

/** usageCounters answers a workspace's counters now. Assets, renders and template conversions do not
 * exist yet in this store (issues 3 and 4 add them and their sums here), so every counter is 0. */
export function usageCounters(_store: Store, _clock: Clock, _workspaceId: string): UsageCounters {
  return { documentsThisMonth: 0, storageBytes: 0, testRendersToday: 0, templateConversionsThisMonth: 0 };
}
