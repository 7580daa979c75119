import { describe, expect, test } from "bun:test";
import { clientAddress } from "../../src/http/client-address";
import { parseCidrList } from "../../src/lib/cidr";

const trusted = parseCidrList(["10.0.0.0/8", "2001:db8::/32"]);

describe("clientAddress", () => {
  test.each([
    ["untrusted peer: X-Forwarded-For ignored", "203.0.113.9", "198.51.100.1", "203.0.113.9"],
    ["trusted peer, one hop", "10.1.2.3", "198.51.100.1", "198.51.100.1"],
    ["trusted chain: rightmost untrusted hop", "10.1.2.3", "198.51.100.66, 198.51.100.1, 10.9.9.9", "198.51.100.1"],
    ["IPv6 proxy, IPv4 client", "2001:db8::5", "198.51.100.2", "198.51.100.2"],
    ["IPv4-mapped peer counts as IPv4", "::ffff:10.0.0.1", "198.51.100.3", "198.51.100.3"],
    ["every hop trusted: leftmost", "10.0.0.1", "10.0.0.2, 10.0.0.3", "10.0.0.2"],
    ["no header", "10.0.0.1", null, "10.0.0.1"],
  ])("%s", (_name, peer, header, expected) => {
    expect(clientAddress(peer as string, header as string | null, trusted)).toBe(expected as string);
  });
});
