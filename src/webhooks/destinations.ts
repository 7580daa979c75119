/** destinations: the allowed-destination check of spec 6.7, run when an endpoint is saved and before every delivery (6.5 (5)). */
import { lookup } from "node:dns/promises";
import type { Config } from "../config";

/** A resolver answers every A and AAAA address of a host name; an empty list or a throw means it does not resolve. */
export type Resolver = (host: string) => Promise<string[]>;

export interface DestinationOptions {
  /** spec 6.7: self-hosted installations also accept http. */
  allowHttp: boolean;
  /** spec 6.7: self-hosted installations can allow private addresses; this also lets localhost names through. */
  allowPrivate: boolean;
  resolve: Resolver;
}

/** destinationOptions answers the spec 6.7 options the configuration sets, with the system resolver unless one is given. */
export function destinationOptions(config: Pick<Config, "webhookAllowHttp" | "webhookAllowPrivate">, resolve: Resolver = resolveHost): DestinationOptions {
  return { allowHttp: config.webhookAllowHttp, allowPrivate: config.webhookAllowPrivate, resolve };
}

/** The outcome: either the URL and the checked address to dial (no brackets), or a user-facing reason. */
export type DestinationCheck = { ok: true; url: URL; address: string } | { ok: false; reason: string };

/** checkDestination applies spec 6.7 to a URL; on success the caller dials `address`, never the name again. */
export async function checkDestination(raw: string, options: DestinationOptions): Promise<DestinationCheck> {
  let url: URL;
  try {
    // WHATWG URL turns 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 into 127.0.0.1 and lower-cases names.
    url = new URL(raw);
  } catch {
    return refuse("The URL is not valid.");
  }
  // spec 6.7 (1)
  if (url.protocol !== "https:" && url.protocol !== "http:") return refuse("The URL's scheme must be http or https.");
  if (url.protocol === "http:" && !options.allowHttp) return refuse("The URL must use https (http is accepted only when the server runs with WEBHOOK_ALLOW_HTTP=1).");
  // spec 6.7 (2)
  if (url.username !== "" || url.password !== "") return refuse("The URL must not contain a user name or password.");

  // A trailing dot names the same host: `LOCALHOST.` is localhost.
  const host = url.hostname.replace(/\.$/, "");
  // spec 6.7 (3); with private addresses allowed a localhost name may go on, since loopback is then allowed too.
  if (!options.allowPrivate && (host === "localhost" || host.endsWith(".localhost"))) {
    return refuse(`The URL's host (${host}) is a localhost name.`);
  }

  // spec 6.7 (4): an IP literal is classified as it stands, without asking DNS.
  const literal = host.startsWith("[") ? host.slice(1, -1) : parseIPv4(host) ? host : null;
  if (literal !== null) {
    const range = blockedRange(literal, options.allowPrivate);
    if (range) return refuse(`The URL's host is ${describe(range)} (${literal}).`);
    return { ok: true, url, address: literal };
  }

  let answers: string[];
  try {
    answers = await options.resolve(host);
  } catch {
    answers = [];
  }
  // spec 6.7 (5)
  if (answers.length === 0) return refuse(`The URL's host (${host}) does not resolve.`);
  // spec 6.7 (4): every answer must pass, or a name with one public and one private address could be steered inside.
  for (const answer of answers) {
    const range = blockedRange(answer, options.allowPrivate);
    if (range) return refuse(`The URL's host resolves to ${describe(range)} (${answer}).`);
  }
  return { ok: true, url, address: answers[0]! };
}

/** resolveHost is the default resolver: every address the system resolver (getaddrinfo, /etc/hosts included) gives, in its order. */
export async function resolveHost(host: string): Promise<string[]> {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

/** classifyAddress names the special-purpose range an IPv4 or IPv6 address lies in ("loopback", "private"…), or null when it is public. */
export function classifyAddress(ip: string): string | null {
  const bytes = parseAddress(ip);
  if (!bytes) return INVALID;
  return bytes.length === 4 ? classifyIPv4(bytes) : classifyIPv6(bytes);
}

const INVALID = "invalid";

function refuse(reason: string): DestinationCheck {
  return { ok: false, reason };
}

// An address we cannot read cannot be dialled either, so "invalid" stays refused when private addresses are allowed.
function blockedRange(ip: string, allowPrivate: boolean): string | null {
  const range = classifyAddress(ip);
  if (range === null || (allowPrivate && range !== INVALID)) return null;
  return range;
}

function describe(range: string): string {
  if (range === INVALID) return "something that is not an IP address";
  return `${/^[aeiou]/i.test(range) ? "an" : "a"} ${range} address`;
}

// ---- Addresses as bytes: the check never compares text, so no spelling of an address slips past it.

function parseAddress(text: string): Uint8Array | null {
  return text.includes(":") ? parseIPv6(text) : parseIPv4(text);
}

// Only the canonical dotted quad: URL and getaddrinfo both give that, and any other spelling is refused as invalid.
function parseIPv4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!/^(0|[1-9]\d{0,2})$/.test(parts[i]!)) return null;
    const value = Number(parts[i]);
    if (value > 255) return null;
    bytes[i] = value;
  }
  return bytes;
}

function parseIPv6(text: string): Uint8Array | null {
  // A zone (`fe80::1%eth0`) picks an interface, not another address; the bytes before it decide.
  const bare = text.split("%")[0]!;
  const halves = bare.split("::");
  if (halves.length > 2) return null;
  const head = parseGroups(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? parseGroups(halves[1]!, true) : [];
  if (!head || !tail) return null;
  const words = halves.length === 2 ? head.length + tail.length : head.length;
  if (halves.length === 1 ? words !== 8 : words > 7) return null;
  const bytes = new Uint8Array(16);
  head.forEach((word, i) => writeWord(bytes, i, word));
  tail.forEach((word, i) => writeWord(bytes, 8 - tail.length + i, word));
  return bytes;
}

// Groups of up to four hex digits; the last group of the address may be a dotted quad (`::ffff:1.2.3.4`).
function parseGroups(text: string, mayEndInIPv4: boolean): number[] | null {
  if (text === "") return [];
  const groups = text.split(":");
  const words: number[] = [];
  for (let i = 0; i < groups.length; i++) {
    const group = groups[i]!;
    if (/^[0-9a-f]{1,4}$/i.test(group)) {
      words.push(parseInt(group, 16));
      continue;
    }
    const quad = mayEndInIPv4 && i === groups.length - 1 ? parseIPv4(group) : null;
    if (!quad) return null;
    words.push((quad[0]! << 8) | quad[1]!, (quad[2]! << 8) | quad[3]!);
  }
  return words;
}

function writeWord(bytes: Uint8Array, index: number, word: number): void {
  bytes[index * 2] = word >> 8;
  bytes[index * 2 + 1] = word & 0xff;
}

interface Range {
  prefix: Uint8Array;
  bits: number;
  name: string;
}

function range(cidr: string, name: string): Range {
  const [address, bits] = cidr.split("/");
  return { prefix: parseAddress(address!)!, bits: Number(bits), name };
}

function inRange(bytes: Uint8Array, { prefix, bits }: Range): boolean {
  if (bytes.length !== prefix.length) return false;
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== prefix[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (bytes[whole]! & mask) === (prefix[whole]! & mask);
}

// IANA IPv4 Special-Purpose Address Registry, plus cloud metadata; the first match names the range, so the narrow
// metadata entries come before the link-local block that holds 169.254.169.254.
const IPV4_BLOCKED: readonly Range[] = [
  range("169.254.169.254/32", "cloud metadata"), // AWS, GCP, Azure, OpenStack
  range("168.63.129.16/32", "cloud metadata"), // Azure wire server: a public address that is not public
  range("0.0.0.0/8", "unspecified"),
  range("10.0.0.0/8", "private"),
  range("100.64.0.0/10", "shared"),
  range("127.0.0.0/8", "loopback"),
  range("169.254.0.0/16", "link-local"),
  range("172.16.0.0/12", "private"),
  range("192.0.0.0/24", "reserved"), // IETF protocol assignments
  range("192.0.2.0/24", "documentation"),
  range("192.88.99.0/24", "reserved"), // deprecated 6to4 relay anycast
  range("192.168.0.0/16", "private"),
  range("198.18.0.0/15", "benchmarking"),
  range("198.51.100.0/24", "documentation"),
  range("203.0.113.0/24", "documentation"),
  range("224.0.0.0/4", "multicast"),
  range("255.255.255.255/32", "broadcast"),
  range("240.0.0.0/4", "reserved"),
];

// IANA IPv6 Special-Purpose Address Registry and the multicast and deprecated site-local blocks; narrow first.
const IPV6_BLOCKED: readonly Range[] = [
  range("::/128", "unspecified"),
  range("::1/128", "loopback"),
  range("64:ff9b:1::/48", "private"), // local-use NAT64 (RFC 8215): its IPv4 side is a private network
  range("100::/64", "discard-only"),
  range("2001::/32", "Teredo"), // the client address inside is obfuscated and the relay is anyone's: refuse it whole
  range("2001::/23", "reserved"), // IETF protocol assignments
  range("2001:db8::/32", "documentation"),
  range("3fff::/20", "documentation"),
  range("5f00::/16", "reserved"), // SRv6 SIDs
  range("fd00:ec2::254/128", "cloud metadata"), // AWS IMDS over IPv6
  range("fc00::/7", "private"), // unique-local
  range("fe80::/10", "link-local"),
  range("fec0::/10", "site-local"),
  range("ff00::/8", "multicast"),
];

// Forms that carry an IPv4 address: they reach that address, so it is the IPv4 that is classified.
const IPV4_MAPPED = range("::ffff:0:0/96", "IPv4-mapped");
const NAT64 = range("64:ff9b::/96", "NAT64"); // well-known prefix, RFC 6052: IPv4 in the last four bytes
const SIX_TO_FOUR = range("2002::/16", "6to4"); // RFC 3056: IPv4 in bytes 2..5
const GLOBAL_UNICAST = range("2000::/3", "global unicast");

function classifyIPv4(bytes: Uint8Array): string | null {
  return IPV4_BLOCKED.find((r) => inRange(bytes, r))?.name ?? null;
}

function classifyIPv6(bytes: Uint8Array): string | null {
  const blocked = IPV6_BLOCKED.find((r) => inRange(bytes, r));
  if (blocked) return blocked.name;
  if (inRange(bytes, IPV4_MAPPED) || inRange(bytes, NAT64)) return classifyIPv4(bytes.subarray(12, 16));
  if (inRange(bytes, SIX_TO_FOUR)) return classifyIPv4(bytes.subarray(2, 6));
  // Everything outside 2000::/3 is unassigned or reserved by the IETF (IPv4-compatible ::/96 and 100:0:0:1::/64 included).
  return inRange(bytes, GLOBAL_UNICAST) ? null : "reserved";
}
