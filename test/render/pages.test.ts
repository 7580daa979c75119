import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { RenderPool } from "../../src/render/pool";

// bunfig.toml's [test] timeout is not applied by Bun 1.4.5; ~100 prints on two busy cores take a few seconds.
setDefaultTimeout(60_000);

let pool: RenderPool;
beforeAll(async () => {
  pool = new RenderPool({ size: 1, chromiumPath: "/usr/bin/chromium", timeoutMs: 15_000, recycleAfter: 1000 });
  await pool.start();
});
afterAll(() => pool.stop());

// What each compiled document carries (render/compile), and what a Document keeps across jobs.
const CSP = `<meta http-equiv="Content-Security-Policy" content="script-src 'none'; object-src 'none'">`;

test("a page moves to a new Document after 100 jobs (each job's CSP <meta> stays with its Document), and keeps printing on the same page", async () => {
  const before = pool.stats();
  for (let i = 1; i <= 100; i++) await pool.render({ html: `<!DOCTYPE html><html><head>${CSP}</head><body><p>job ${i}</p></body></html>` });
  const fresh = await pool.render({ html: `<!DOCTYPE html><html><head>${CSP}</head><body><p>job 101</p></body></html>` });
  expect(fresh.pages).toBe(1);
  const after = pool.stats();
  expect(after.freshDocuments - before.freshDocuments).toBe(1);
  expect(after.pagesOpened).toBe(before.pagesOpened);
  expect(after.recycled).toBe(before.recycled);
});
