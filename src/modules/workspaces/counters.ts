/** workspaces/counters: a workspace's usage counters now (spec 2.3), read from the ledger and its stored assets. */
import type { Clock } from "../../lib/clock";
import { conversionsThisMonth, renderCounters } from "../../ledger/counters";
import { storedBytes } from "../../store/assets";
import type { Reads } from "../../store/store";
import type { UsageCounters } from "./model";

/** usageCounters answers a workspace's counters now. */
export async function usageCounters(store: Reads, clock: Clock, workspaceId: string): Promise<UsageCounters> {
  const now = clock.now();
  const [{ documentsThisMonth, testRendersToday }, storageBytes, templateConversionsThisMonth] = await Promise.all([
    renderCounters(store, workspaceId, now),
    storedBytes(store, workspaceId),
    conversionsThisMonth(store, clock, workspaceId),
  ]);
  return { documentsThisMonth, storageBytes, testRendersToday, templateConversionsThisMonth };
}
