/** cidr: CIDR lists and membership tests for IPv4 and IPv6 (TRUSTED_PROXY_RANGES). */
import { BlockList, isIP } from "node:net";

/** parseCidrList builds a matcher from ranges such as `10.0.0.0/8` or `::1/128`; a bare address is a /32 or /128. */
export function parseCidrList(ranges: string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, bits, extra] = range.split("/");
    const family = isIP(address ?? "");
    if (!family || extra !== undefined) throw new Error(`${range} is not a CIDR range`);
    const max = family === 4 ? 32 : 128;
    const prefix = bits === undefined ? max : Number(bits);
    if (!/^\d+$/.test(bits ?? String(max)) || prefix > max) throw new Error(`${range} has a prefix length outside 0..${max}`);
    list.addSubnet(address!, prefix, family === 4 ? "ipv4" : "ipv6");
  }
  return list;
}

/** normalizeAddress strips IPv4-mapped IPv6 (`::ffff:1.2.3.4`) so one client has one address. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** inRanges tells whether an address (v4 or v6) is inside one of the ranges. */
export function inRanges(list: BlockList, address: string): boolean {
  const a = normalizeAddress(address);
  const family = isIP(a);
  if (!family) return false;
  return list.check(a, family === 4 ? "ipv4" : "ipv6");
}
