import { describe, expect, test } from "bun:test";
import { decryptSecret, encryptSecret } from "../../src/webhooks/secret-box";
import { dialTarget, failureText } from "../../src/webhooks/dispatcher";

const KEY = "k".repeat(40);
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

describe("secret-box (AES-256-GCM under SECRET_KEY)", () => {
  test("round-trips, with a fresh IV each time", () => {
    const a = encryptSecret(KEY, "whe_1", SECRET);
    const b = encryptSecret(KEY, "whe_1", SECRET);
    expect(a).not.toBe(b);
    expect(a).not.toContain(SECRET.slice(6));
    // iv (12) + tag (16) + ciphertext (as long as the secret)
    expect(Buffer.from(a, "base64").length).toBe(12 + 16 + SECRET.length);
    expect(decryptSecret(KEY, "whe_1", a)).toBe(SECRET);
    expect(decryptSecret(KEY, "whe_1", b)).toBe(SECRET);
  });

  test("another SECRET_KEY, another endpoint's row or a damaged value does not open", () => {
    const sealed = encryptSecret(KEY, "whe_1", SECRET);
    expect(decryptSecret("j".repeat(40), "whe_1", sealed)).toBeNull();
    expect(decryptSecret(KEY, "whe_2", sealed)).toBeNull();
    const bytes = Buffer.from(sealed, "base64");
    bytes[bytes.length - 1]! ^= 1;
    expect(decryptSecret(KEY, "whe_1", bytes.toString("base64"))).toBeNull();
    expect(decryptSecret(KEY, "whe_1", "")).toBeNull();
    expect(decryptSecret(KEY, "whe_1", "not base64 at all!")).toBeNull();
  });
});

describe("dialTarget: the checked address is dialled, the name goes to host and SNI", () => {
  const cases: Array<[string, string, { url: string; serverName?: string }]> = [
    ["https://hooks.example.com/in?x=1#frag", "93.184.215.14", { url: "https://93.184.215.14/in?x=1", serverName: "hooks.example.com" }],
    ["https://hooks.example.com.:8443/in", "93.184.215.14", { url: "https://93.184.215.14:8443/in", serverName: "hooks.example.com" }],
    ["https://v6.example.com/in", "2606:4700:4700::1111", { url: "https://[2606:4700:4700::1111]/in", serverName: "v6.example.com" }],
    ["http://receiver.test:8080/", "127.0.0.1", { url: "http://127.0.0.1:8080/" }],
    ["https://1.1.1.1/in", "1.1.1.1", { url: "https://1.1.1.1/in" }],
    ["https://[2606:4700:4700::1111]/in", "2606:4700:4700::1111", { url: "https://[2606:4700:4700::1111]/in" }],
  ];
  for (const [url, address, expected] of cases) {
    test(`${url} at ${address}`, () => {
      expect(dialTarget(new URL(url), address)).toEqual(expected);
    });
  }
});

describe("failureText: spec 6.6", () => {
  test("timeouts, connection codes and the rest", () => {
    expect(failureText(Object.assign(new Error("x"), { name: "TimeoutError" }))).toBe("The endpoint did not respond in time.");
    expect(failureText(Object.assign(new TypeError("x"), { code: "ECONNREFUSED" }))).toBe("The request failed (ECONNREFUSED).");
    expect(failureText(Object.assign(new TypeError("x"), { code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" }))).toBe("The request failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE).");
    expect(failureText(Object.assign(new TypeError("x"), { code: "weird code\n" }))).toBe("The request failed (UNKNOWN).");
    expect(failureText(new Error("x"))).toBe("The request failed (UNKNOWN).");
  });
});
