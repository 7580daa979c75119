import { describe, expect, test } from "bun:test";
import { assetUrl, newAssetScope } from "../../src/render/assets";
import { MAX_WARNINGS } from "../../src/queue/warnings";
import { WarningList, warningFor } from "../../src/render/warnings";

describe("warningFor", () => {
  test("drops the query, the fragment and any credentials; keeps the host", () => {
    expect(warningFor("blocked", "https://user:pw@cdn.example.com:8443/a/b.png?X-Amz-Signature=abc&key=k#top")).toEqual({
      reason: "blocked",
      url: "https://cdn.example.com:8443/a/b.png",
      host: "cdn.example.com",
    });
  });

  test("an asset address is shown without the render's scope, and without a host", () => {
    const scope = newAssetScope();
    const warning = warningFor("asset_not_found", `${assetUrl("ast_logo", scope)}?v=1`);
    expect(warning).toEqual({ reason: "asset_not_found", url: assetUrl("ast_logo") });
    expect(JSON.stringify(warning)).not.toContain(scope);
  });

  test("local addresses have no host; a very long address is cut at 300 characters", () => {
    expect(warningFor("blocked", "file:///etc/passwd")).toEqual({ reason: "blocked", url: "file:///etc/passwd" });
    const long = warningFor("blocked", `https://x.example/${"a".repeat(1000)}`);
    expect(long.url).toHaveLength(300);
    expect(long.url.endsWith("…")).toBe(true);
  });
});

describe("WarningList", () => {
  test("one warning per address and reason, the first MAX_WARNINGS (20)", () => {
    const list = new WarningList();
    list.add("blocked", "https://a.example/x.png?1");
    list.add("blocked", "https://a.example/x.png?2");
    expect(list.items).toHaveLength(1);
    for (let i = 0; i < 50; i++) list.add("blocked", `https://h${i}.example/`);
    expect(MAX_WARNINGS).toBe(20);
    expect(list.items).toHaveLength(20);
    expect(list.items[19]!.host).toBe("h18.example");
  });
});
