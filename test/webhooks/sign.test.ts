import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { newSigningSecret, sign, signatureHeader, TIMESTAMP_TOLERANCE_SECONDS, verify } from "../../src/webhooks/sign";

// The Standard Webhooks test vector (DESIGN.md 5).
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const TIMESTAMP = 1614265330;
const BODY = '{"test": 2432232314}';
const EXPECTED = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
const AT_TIMESTAMP = new Date(TIMESTAMP * 1000);

describe("sign", () => {
  test("matches the Standard Webhooks test vector", () => {
    expect(sign(SECRET, MSG_ID, TIMESTAMP, BODY)).toBe(EXPECTED);
  });

  test("signs bytes the same as the text they encode", () => {
    expect(sign(SECRET, MSG_ID, TIMESTAMP, new TextEncoder().encode(BODY))).toBe(EXPECTED);
  });

  test("refuses a secret without the whsec_ prefix", () => {
    expect(() => sign("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", MSG_ID, TIMESTAMP, BODY)).toThrow("whsec_");
  });

  test("a different id, timestamp or body changes the signature", () => {
    expect(sign(SECRET, "msg_other", TIMESTAMP, BODY)).not.toBe(EXPECTED);
    expect(sign(SECRET, MSG_ID, TIMESTAMP + 1, BODY)).not.toBe(EXPECTED);
    expect(sign(SECRET, MSG_ID, TIMESTAMP, '{"test": 2432232315}')).not.toBe(EXPECTED);
  });
});

describe("newSigningSecret", () => {
  test("is whsec_ and the base64 of 32 random bytes", () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64").length).toBe(32);
    expect(newSigningSecret()).not.toBe(secret);
  });
});

describe("signatureHeader", () => {
  test("joins one signature per active secret with a space, in order (spec 6.4 (4))", () => {
    const other = newSigningSecret();
    const header = signatureHeader([SECRET, other], MSG_ID, TIMESTAMP, BODY);
    expect(header).toBe(`${EXPECTED} ${sign(other, MSG_ID, TIMESTAMP, BODY)}`);
  });

  test("one secret gives one signature", () => {
    expect(signatureHeader([SECRET], MSG_ID, TIMESTAMP, BODY)).toBe(EXPECTED);
  });
});

describe("verify", () => {
  const request = { msgId: MSG_ID, timestamp: String(TIMESTAMP), signature: EXPECTED, body: BODY };
  const secondsLater = (s: number) => new Date((TIMESTAMP + s) * 1000);

  test("accepts the test vector", () => {
    expect(verify([SECRET], request, AT_TIMESTAMP)).toEqual({ ok: true });
  });

  test("accepts when any offered signature matches any secret (rotation window)", () => {
    const old = newSigningSecret();
    const both = signatureHeader([old, SECRET], MSG_ID, TIMESTAMP, BODY);
    expect(verify([SECRET], { ...request, signature: both }, AT_TIMESTAMP).ok).toBe(true);
    expect(verify([old], { ...request, signature: both }, AT_TIMESTAMP).ok).toBe(true);
    expect(verify([newSigningSecret(), SECRET], request, AT_TIMESTAMP).ok).toBe(true);
  });

  test.each([
    ["exactly 5 minutes late", TIMESTAMP_TOLERANCE_SECONDS, true],
    ["exactly 5 minutes early", -TIMESTAMP_TOLERANCE_SECONDS, true],
    ["5 minutes and 1 second late", TIMESTAMP_TOLERANCE_SECONDS + 1, false],
    ["5 minutes and 1 second early", -TIMESTAMP_TOLERANCE_SECONDS - 1, false],
  ])("timestamp tolerance: %s → ok %p (spec 6.4 (3))", (_name, offset, ok) => {
    const result = verify([SECRET], request, secondsLater(offset));
    expect(result.ok).toBe(ok);
    if (!result.ok) expect(result.reason).toBe("The webhook-timestamp is more than 5 minutes from now.");
  });

  test.each([
    ["a wrong secret", { secrets: [newSigningSecret()] }],
    ["a changed body", { body: '{"test": 1}' }],
    ["a changed id", { msgId: "msg_other" }],
    ["a v2 prefix", { signature: EXPECTED.replace("v1,", "v2,") }],
    ["an empty header", { signature: "" }],
  ])("rejects %s", (_name, change) => {
    const { secrets = [SECRET], ...rest } = change as { secrets?: string[] } & Partial<typeof request>;
    const result = verify(secrets, { ...request, ...rest }, AT_TIMESTAMP);
    expect(result).toEqual({ ok: false, reason: "No signature matches the body and the secret." });
  });

  test.each(["", "abc", "1614265330.5", "-1614265330"])("rejects the timestamp %p", (timestamp) => {
    expect(verify([SECRET], { ...request, timestamp }, AT_TIMESTAMP)).toEqual({
      ok: false,
      reason: "The webhook-timestamp header is not a Unix time in seconds.",
    });
  });

  test("a malformed secret is a reason, not a throw", () => {
    expect(verify(["not-a-secret"], request, AT_TIMESTAMP)).toEqual({
      ok: false,
      reason: "A signing secret has the form whsec_<base64>.",
    });
    expect(verify([], request, AT_TIMESTAMP).ok).toBe(false);
  });
});

describe("cross-check with the standardwebhooks package", () => {
  test("their verify accepts what we sign, with one or two signatures", () => {
    const secret = newSigningSecret();
    const other = newSigningSecret();
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ id: "evt_x", type: "render.succeeded", data: { renderId: "rnd_x" } });
    for (const signature of [sign(secret, "whd_1", now, body), signatureHeader([other, secret], "whd_1", now, body)]) {
      const headers = { "webhook-id": "whd_1", "webhook-timestamp": String(now), "webhook-signature": signature };
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    }
  });

  test("their sign equals ours, and our verify accepts it", () => {
    const secret = newSigningSecret();
    const theirs = new Webhook(secret).sign(MSG_ID, AT_TIMESTAMP, BODY);
    expect(theirs).toBe(sign(secret, MSG_ID, TIMESTAMP, BODY));
    const request = { msgId: MSG_ID, timestamp: String(TIMESTAMP), signature: theirs, body: BODY };
    expect(verify([secret], request, AT_TIMESTAMP).ok).toBe(true);
  });

  test("their verify rejects our signature under another secret", () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = {
      "webhook-id": MSG_ID,
      "webhook-timestamp": String(now),
      "webhook-signature": sign(newSigningSecret(), MSG_ID, now, BODY),
    };
    expect(() => new Webhook(SECRET).verify(BODY, headers)).toThrow("No matching signature found");
  });
});
