/** http/client-address: which address a request comes from, believing X-Forwarded-For only from trusted proxies. */
import type { BlockList } from "node:net";
import { inRanges, normalizeAddress } from "../lib/cidr";

/** clientAddress walks X-Forwarded-For from the right past trusted proxies; the first untrusted hop is the client. */
export function clientAddress(peer: string | undefined, forwardedFor: string | null, trusted: BlockList): string {
  const direct = normalizeAddress(peer ?? "unknown");
  if (!forwardedFor || !inRanges(trusted, direct)) return direct;
  const hops = forwardedFor.split(",").map((h) => normalizeAddress(h.trim())).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!inRanges(trusted, hops[i]!)) return hops[i]!;
  }
  // Every hop is a trusted proxy: the leftmost is the closest thing to a client we have.
  return hops[0] ?? direct;
}
