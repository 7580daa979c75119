import { describe, expect, test } from "bun:test";
import { checkDestination, classifyAddress, resolveHost, type Resolver } from "../../src/webhooks/destinations";

// Fakes only at the edge we cannot reach (STYLE habit 10): DNS answers.
const DNS: Record<string, string[]> = {
  "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  "public.example": ["8.8.8.8"],
  "mixed.example": ["8.8.8.8", "10.0.0.5"],
  "mixed6.example": ["2606:4700:4700::1111", "fd00::1"],
  "metadata.example": ["169.254.169.254"],
  "mapped.example": ["::ffff:192.168.0.1"],
  "zoned.example": ["fe80::1%eth0"],
  "garbage.example": ["not-an-address"],
  localhost: ["127.0.0.1", "::1"],
  "app.localhost": ["127.0.0.1"],
};
const resolve: Resolver = async (host) => DNS[host] ?? [];
const strict = { allowHttp: false, allowPrivate: false, resolve };
const selfHosted = { allowHttp: true, allowPrivate: false, resolve };
const permissive = { allowHttp: true, allowPrivate: true, resolve };

const ok = (address: string) => ({ ok: true as const, address });
const no = (reason: string) => ({ ok: false as const, reason });
const literal = (kind: string, ip: string) => no(`The URL's host is ${kind} address (${ip}).`);

// [url, options, expected]: the address to dial when allowed, or the user-facing reason when refused.
const CASES: [string, typeof strict, ReturnType<typeof ok> | ReturnType<typeof no>][] = [
  // spec 6.7 (1): schemes
  ["https://hooks.example.com/in", strict, ok("93.184.215.14")],
  ["http://hooks.example.com/in", strict, no("The URL must use https (http is accepted only when the server runs with WEBHOOK_ALLOW_HTTP=1).")],
  ["http://hooks.example.com/in", selfHosted, ok("93.184.215.14")],
  ["ftp://hooks.example.com/in", selfHosted, no("The URL's scheme must be http or https.")],
  ["file:///etc/passwd", permissive, no("The URL's scheme must be http or https.")],
  ["javascript:alert(1)", permissive, no("The URL's scheme must be http or https.")],
  ["not a url", permissive, no("The URL is not valid.")],
  ["https://[fe80::1%25eth0]/", permissive, no("The URL is not valid.")],
  // spec 6.7 (2): credentials
  ["https://user:pw@hooks.example.com/", strict, no("The URL must not contain a user name or password.")],
  ["https://user@hooks.example.com/", strict, no("The URL must not contain a user name or password.")],
  ["https://:pw@hooks.example.com/", permissive, no("The URL must not contain a user name or password.")],
  // spec 6.7 (3): localhost names, any case, with or without the trailing dot
  ["https://localhost/", strict, no("The URL's host (localhost) is a localhost name.")],
  ["https://LOCALHOST./", strict, no("The URL's host (localhost) is a localhost name.")],
  ["https://foo.localhost/", strict, no("The URL's host (foo.localhost) is a localhost name.")],
  ["https://App.LocalHost.:8443/", strict, no("The URL's host (app.localhost) is a localhost name.")],
  ["https://localhost.example/", strict, no("The URL's host (localhost.example) does not resolve.")],
  // spec 6.7 (4): numeric spellings of 127.0.0.1, normalised by WHATWG URL
  ["http://2130706433/", selfHosted, literal("a loopback", "127.0.0.1")],
  ["http://0x7f000001/", selfHosted, literal("a loopback", "127.0.0.1")],
  ["http://127.1/", selfHosted, literal("a loopback", "127.0.0.1")],
  ["http://0177.0.0.1/", selfHosted, literal("a loopback", "127.0.0.1")],
  ["http://127.0.0.1./", selfHosted, literal("a loopback", "127.0.0.1")],
  ["http://%31%32%37.0.0.1/", selfHosted, literal("a loopback", "127.0.0.1")],
  ["http://0/", selfHosted, literal("an unspecified", "0.0.0.0")],
  // IPv6 literals, and the forms that carry an IPv4 address
  ["https://[::1]/", strict, literal("a loopback", "::1")],
  ["https://[::]/", strict, literal("an unspecified", "::")],
  ["https://[::ffff:127.0.0.1]/", strict, literal("a loopback", "::ffff:7f00:1")],
  ["https://[::ffff:7f00:1]/", strict, literal("a loopback", "::ffff:7f00:1")],
  ["https://[0:0:0:0:0:ffff:a9fe:a9fe]/", strict, literal("a cloud metadata", "::ffff:a9fe:a9fe")],
  ["https://[::ffff:8.8.8.8]/", strict, ok("::ffff:808:808")],
  ["https://[::127.0.0.1]/", strict, literal("a reserved", "::7f00:1")],
  ["https://[64:ff9b::a00:1]/", strict, literal("a private", "64:ff9b::a00:1")],
  ["https://[64:ff9b::808:808]/", strict, ok("64:ff9b::808:808")],
  ["https://[64:ff9b:1::808:808]/", strict, literal("a private", "64:ff9b:1::808:808")],
  ["https://[2002:c0a8:0101::1]/", strict, literal("a private", "2002:c0a8:101::1")],
  ["https://[2002:0808:0808::1]/", strict, ok("2002:808:808::1")],
  ["https://[2002:7f00:1::]/", strict, literal("a loopback", "2002:7f00:1::")],
  ["https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", strict, literal("a Teredo", "2001:0:4136:e378:8000:63bf:3fff:fdd2")],
  ["https://[fd00:ec2::254]/", strict, literal("a cloud metadata", "fd00:ec2::254")],
  ["https://[2606:4700:4700::1111]/", strict, ok("2606:4700:4700::1111")],
  // IPv4 literals
  ["https://8.8.8.8/", strict, ok("8.8.8.8")],
  ["https://1.1.1.1:8443/path?q=1", strict, ok("1.1.1.1")],
  ["https://169.254.169.254/latest/meta-data/", strict, literal("a cloud metadata", "169.254.169.254")],
  ["https://168.63.129.16/", strict, literal("a cloud metadata", "168.63.129.16")],
  ["https://10.0.0.5/", strict, literal("a private", "10.0.0.5")],
  ["https://255.255.255.255/", strict, literal("a broadcast", "255.255.255.255")],
  // names: every answer must pass (spec 6.7 (4)), and a name must resolve (6.7 (5))
  ["https://public.example/", strict, ok("8.8.8.8")],
  ["https://PUBLIC.example./", strict, ok("8.8.8.8")],
  ["https://mixed.example/", strict, no("The URL's host resolves to a private address (10.0.0.5).")],
  ["https://mixed6.example/", strict, no("The URL's host resolves to a private address (fd00::1).")],
  ["https://metadata.example/", strict, no("The URL's host resolves to a cloud metadata address (169.254.169.254).")],
  ["https://mapped.example/", strict, no("The URL's host resolves to a private address (::ffff:192.168.0.1).")],
  ["https://zoned.example/", strict, no("The URL's host resolves to a link-local address (fe80::1%eth0).")],
  ["https://nowhere.example/", strict, no("The URL's host (nowhere.example) does not resolve.")],
  ["https://garbage.example/", permissive, no("The URL's host resolves to something that is not an IP address (not-an-address).")],
  // self-hosted with private addresses allowed: the address class is relaxed, the other rules are not
  ["http://127.0.0.1:9999/hook", permissive, ok("127.0.0.1")],
  ["http://[::1]:9999/hook", permissive, ok("::1")],
  ["http://10.0.0.5/", permissive, ok("10.0.0.5")],
  ["http://localhost:9999/", permissive, ok("127.0.0.1")],
  ["http://app.localhost/", permissive, ok("127.0.0.1")],
  ["http://mixed.example/", permissive, ok("8.8.8.8")],
  ["http://nowhere.example/", permissive, no("The URL's host (nowhere.example) does not resolve.")],
  ["http://127.0.0.1/", { ...permissive, allowHttp: false }, no("The URL must use https (http is accepted only when the server runs with WEBHOOK_ALLOW_HTTP=1).")],
  ["https://user:pw@127.0.0.1/", permissive, no("The URL must not contain a user name or password.")],
];

describe("checkDestination (spec 6.7)", () => {
  test.each(CASES)("%s (%o)", async (url, options, expected) => {
    const result = await checkDestination(url, options);
    if (expected.ok) {
      expect(result).toMatchObject({ ok: true, address: expected.address });
      if (result.ok) expect(result.url.href).toBe(new URL(url).href);
    } else {
      expect(result).toEqual(expected);
    }
  });

  test("a resolver that throws means the name does not resolve", async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    expect(await checkDestination("https://hooks.example.com/", { ...strict, resolve: failing })).toEqual(
      no("The URL's host (hooks.example.com) does not resolve."),
    );
  });

  test("IP literals are not sent to the resolver", async () => {
    const asked: string[] = [];
    const spy: Resolver = async (host) => {
      asked.push(host);
      return ["8.8.8.8"];
    };
    await checkDestination("https://10.0.0.1/", { ...strict, resolve: spy });
    await checkDestination("https://[::1]/", { ...strict, resolve: spy });
    await checkDestination("https://ok.example./", { ...strict, resolve: spy });
    expect(asked).toEqual(["ok.example"]);
  });
});

// [address, range name or null when public]: one address inside each special-purpose range and, where it means
// something, its neighbour just outside.
const ADDRESSES: [string, string | null][] = [
  // IPv4
  ["0.0.0.0", "unspecified"],
  ["0.255.255.255", "unspecified"],
  ["1.0.0.0", null],
  ["9.255.255.255", null],
  ["10.0.0.0", "private"],
  ["10.255.255.255", "private"],
  ["11.0.0.0", null],
  ["100.63.255.255", null],
  ["100.64.0.0", "shared"],
  ["100.127.255.255", "shared"],
  ["100.128.0.0", null],
  ["126.255.255.255", null],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["128.0.0.0", null],
  ["169.253.255.255", null],
  ["169.254.0.1", "link-local"],
  ["169.254.169.254", "cloud metadata"],
  ["169.255.0.0", null],
  ["168.63.129.16", "cloud metadata"],
  ["168.63.129.17", null],
  ["172.15.255.255", null],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.0", null],
  ["192.0.0.8", "reserved"],
  ["192.0.1.0", null],
  ["192.0.2.1", "documentation"],
  ["192.0.3.0", null],
  ["192.88.99.1", "reserved"],
  ["192.88.100.0", null],
  ["192.167.255.255", null],
  ["192.168.1.1", "private"],
  ["192.169.0.0", null],
  ["198.17.255.255", null],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.20.0.0", null],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["203.0.114.0", null],
  ["223.255.255.255", null],
  ["224.0.0.1", "multicast"],
  ["239.255.255.255", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.254", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["8.8.8.8", null],
  ["1.1.1.1", null],
  // IPv6
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["::2", "reserved"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.1.2.3", "private"],
  ["::FFFF:8.8.8.8", null],
  ["::ffff:101:101", null],
  ["::ffff:1:1", "unspecified"],
  ["64:ff9b::a00:1", "private"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::808:808", null],
  ["64:ff9b:1::1", "private"],
  ["64:ff9b:2::1", "reserved"],
  ["100::1", "discard-only"],
  ["100:0:0:1::1", "reserved"],
  ["1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"],
  ["2000::1", null],
  ["2001::1", "Teredo"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
  ["2001:1::1", "reserved"],
  ["2001:1ff::1", "reserved"],
  ["2001:200::1", null],
  ["2001:db8::1", "documentation"],
  ["2001:db9::1", null],
  ["2002:c0a8:0101::1", "private"],
  ["2002:a9fe:a9fe::1", "cloud metadata"],
  ["2002:0808:0808::1", null],
  ["2003::1", null],
  ["2606:4700:4700::1111", null],
  ["2a00:1450:4001:81c::200e", null],
  ["3ffe:ffff::1", null],
  ["3fff::1", "documentation"],
  ["3fff:fff::1", "documentation"],
  ["3fff:1000::1", null],
  ["5f00::1", "reserved"],
  ["5f01::1", "reserved"],
  ["fbff:ffff::1", "reserved"],
  ["fc00::1", "private"],
  ["fd00::1", "private"],
  ["fd00:ec2::254", "cloud metadata"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["febf::1", "link-local"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  // not addresses
  ["", "invalid"],
  ["127.1", "invalid"],
  ["010.0.0.1", "invalid"],
  ["256.0.0.1", "invalid"],
  ["1.2.3.4.5", "invalid"],
  ["1::2::3", "invalid"],
  ["1:2:3:4:5:6:7:8:9", "invalid"],
  ["1:2:3:4:5:6:7", "invalid"],
  ["12345::1", "invalid"],
  ["1.2.3.4::", "invalid"],
  ["localhost", "invalid"],
];

describe("classifyAddress (IANA special-purpose registries)", () => {
  test.each(ADDRESSES)("%p → %p", (ip, name) => {
    expect(classifyAddress(ip)).toBe(name);
  });
});

describe("resolveHost (system resolver)", () => {
  test("answers localhost from the hosts file", async () => {
    expect(await resolveHost("localhost")).toContain("127.0.0.1");
  });

  test("a name under .invalid does not resolve (RFC 6761)", async () => {
    expect(await checkDestination("https://renderd-test.invalid/", { ...strict, resolve: resolveHost })).toEqual(
      no("The URL's host (renderd-test.invalid) does not resolve."),
    );
  });
});
