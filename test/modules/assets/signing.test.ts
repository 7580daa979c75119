import { describe, expect, test } from "bun:test";
import { addressUrl, signToken, verifyToken } from "../../../src/modules/assets/signing";
import { contentDisposition, etagMatches } from "../../../src/modules/assets/download";
import { quotaDecision } from "../../../src/modules/assets/service";

const SECRET = "k".repeat(32);
const now = new Date("2026-03-10T10:00:00.000Z");
const later = new Date(now.getTime() + 15 * 60_000);

describe("address tokens", () => {
  const token = signToken(SECRET, "upload", "ast_1", later);

  test("a token is valid until its expiry, not at it", () => {
    expect(token).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    expect(verifyToken(SECRET, "upload", "ast_1", token, now)).toBe("valid");
    expect(verifyToken(SECRET, "upload", "ast_1", token, new Date(later.getTime() - 1))).toBe("valid");
    expect(verifyToken(SECRET, "upload", "ast_1", token, later)).toBe("expired");
  });

  test.each([
    ["another asset", () => verifyToken(SECRET, "upload", "ast_2", token, now)],
    ["another purpose", () => verifyToken(SECRET, "download", "ast_1", token, now)],
    ["another secret", () => verifyToken("j".repeat(32), "upload", "ast_1", token, now)],
    ["a moved expiry", () => verifyToken(SECRET, "upload", "ast_1", `${later.getTime() + 1}.${token.split(".")[1]}`, now)],
    ["a changed signature", () => verifyToken(SECRET, "upload", "ast_1", token.slice(0, -1) + (token.endsWith("x") ? "y" : "x"), now)],
    ["no token", () => verifyToken(SECRET, "upload", "ast_1", undefined, now)],
    ["a list of tokens", () => verifyToken(SECRET, "upload", "ast_1", [token, token], now)],
    ["garbage", () => verifyToken(SECRET, "upload", "ast_1", "../../etc/passwd", now)],
  ])("%s is invalid", (_, verdict) => {
    expect(verdict()).toBe("invalid");
  });

  test("an expired forgery reads as invalid, not expired", () => {
    expect(verifyToken(SECRET, "upload", "ast_1", `1.${"A".repeat(43)}`, now)).toBe("invalid");
  });

  test("addresses sit on PUBLIC_URL, outside /v1/", () => {
    expect(addressUrl("https://r.example.com/base", "upload", "ast_1", "1.x")).toBe("https://r.example.com/base/uploads/ast_1?token=1.x");
    expect(addressUrl("https://r.example.com", "download", "ast_1", "1.x")).toBe("https://r.example.com/downloads/ast_1?token=1.x");
  });
});

describe("contentDisposition", () => {
  test.each([
    ["report.pdf", `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`],
    ["a b(1)'*.css", `attachment; filename="a b(1)'*.css"; filename*=UTF-8''a%20b%281%29%27%2A.css`],
    ['x"y\\z.png', `attachment; filename="x_y_z.png"; filename*=UTF-8''x%22y%5Cz.png`],
    ["Ünïcödé ✓.svg", `attachment; filename="_n_c_d_ _.svg"; filename*=UTF-8''%C3%9Cn%C3%AFc%C3%B6d%C3%A9%20%E2%9C%93.svg`],
    ["bad\uD800.pdf", `attachment; filename="bad_.pdf"; filename*=UTF-8''bad%EF%BF%BD.pdf`],
  ])("%j", (filename, header) => {
    expect(contentDisposition(filename)).toBe(header);
  });
});

describe("etagMatches", () => {
  const etag = `"${"a".repeat(64)}"`;
  test.each([
    [null, false],
    [etag, true],
    [`W/${etag}`, true],
    [`"x", ${etag}`, true],
    ["*", true],
    ['"x"', false],
    ["", false],
  ])("%j → %p", (header, expected) => {
    expect(etagMatches(header, etag)).toBe(expected);
  });
});

describe("quotaDecision (maxStorageBytes)", () => {
  test.each([
    [null, 10 ** 12, 50_000_000, "allow"],
    [100, 0, 100, "allow"],
    [100, 1, 100, "refuse"],
    [100, 60, 40, "allow"],
    [100, 60, 41, "refuse"],
    [0, 0, 1, "refuse"],
  ] as const)("max %p, in use %p, new %p → %s", (max, used, size, expected) => {
    expect(quotaDecision(max, used, size)).toBe(expected);
  });
});
