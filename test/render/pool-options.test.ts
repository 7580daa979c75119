/** pool-options: every pool setting comes from config.ts (env twin and flag) through poolOptions (issue 10 item 2). */
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config";
import { poolOptions } from "../../src/render/pool";

describe("poolOptions", () => {
  test("maps the defaults: 1000 renders per page, no memory budget", () => {
    const options = poolOptions(loadConfig({ RENDER_WORKERS: "3" }));
    expect(options).toMatchObject({ size: 3, chromiumPath: "/usr/bin/chromium", timeoutMs: 30000, recycleAfter: 1000, maxPageMemoryBytes: 0 });
  });

  test("RENDER_RECYCLE_AFTER and RENDER_MAX_PAGE_MEMORY_BYTES reach the pool; flags win over them", () => {
    const env = { RENDER_RECYCLE_AFTER: "50", RENDER_MAX_PAGE_MEMORY_BYTES: "268435456" };
    expect(poolOptions(loadConfig(env))).toMatchObject({ recycleAfter: 50, maxPageMemoryBytes: 268435456 });
    expect(poolOptions(loadConfig(env, { renderRecycleAfter: "7" })).recycleAfter).toBe(7);
  });

  test.each([
    [{ RENDER_RECYCLE_AFTER: "0" }, "RENDER_RECYCLE_AFTER=0"],
    [{ RENDER_MAX_PAGE_MEMORY_BYTES: "-1" }, "RENDER_MAX_PAGE_MEMORY_BYTES=-1"],
  ])("%j is refused with a line naming %s", (env, start) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(start);
  });
});
