/** cli usage: `renderd usage export` run as a real process against a temp DATA_DIR seeded with usage rows. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { daysIn, monthsOf } from "../../cli/usage";
import { recordRenderEnd } from "../../src/ledger/usage-days";
import { openStore } from "../../src/store/open";
import type { Store } from "../../src/store/store";
import { cliOutput, runCli, type CliRun } from "./run-cli";

const dataDir = mkdtempSync(join(tmpdir(), "renderd-cli-usage-"));

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const renderd = (args: string[]): CliRun => runCli(args, { DATA_DIR: dataDir, LOG_LEVEL: "silent" });
const ok = (args: string[]): string => cliOutput(renderd(args), args);

/** badInput asserts exit 2 with nothing on stdout and exactly one stderr line, and answers that line. */
function badInput(args: string[]): string {
  const r = renderd(args);
  expect(r.code).toBe(2);
  expect(r.out).toBe("");
  const lines = r.err.trim().split("\n");
  expect(lines).toHaveLength(1);
  return lines[0];
}

async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(dataDir);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

const ws: Record<"acme" | "beta", string> = { acme: "", beta: "" };

beforeAll(async () => {
  ok(["migrate"]);
  ws.acme = JSON.parse(ok(["workspaces", "create", "Acme", "--slug", "acme", "--json"])).id;
  ws.beta = JSON.parse(ok(["workspaces", "create", "Beta", "--slug", "beta", "--json"])).id;
  await withStore((store) =>
    store.tx(async (tx) => {
      recordRenderEnd(tx, { workspaceId: ws.acme, day: "2025-01-31", status: "succeeded", pages: 4, bytes: 4096 });
      recordRenderEnd(tx, { workspaceId: ws.beta, day: "2025-01-31", status: "failed" });
      recordRenderEnd(tx, { workspaceId: ws.acme, day: "2025-02-01", status: "succeeded", pages: 1, bytes: 10 });
      recordRenderEnd(tx, { workspaceId: ws.acme, day: "2025-02-01", status: "cancelled" });
      recordRenderEnd(tx, { workspaceId: ws.beta, day: "2025-03-01", status: "succeeded", pages: 2, bytes: 20 });
    }),
  );
});

const HEADER = "day,workspaceId,workspaceSlug,rendersSucceeded,rendersFailed,rendersCancelled,pages,outputBytes";

describe("renderd usage export", () => {
  test("csv: a header line and one CRLF-ended record per workspace and day with usage, by day then workspace", () => {
    const out = ok(["usage", "export", "--from", "2025-01-01", "--to", "2025-02-28", "--format", "csv"]);
    const [first, second] = [ws.acme, ws.beta].sort();
    const jan31 = { [ws.acme]: `2025-01-31,${ws.acme},acme,1,0,0,4,4096`, [ws.beta]: `2025-01-31,${ws.beta},beta,0,1,0,0,0` };
    expect(out).toBe([HEADER, jan31[first], jan31[second], `2025-02-01,${ws.acme},acme,1,0,1,1,10`].map((l) => l + "\r\n").join(""));
  });

  test("json: an array of the same rows", () => {
    const rows = JSON.parse(ok(["usage", "export", "--from", "2025-02-01", "--to", "2025-03-31", "--format", "json"]));
    expect(rows).toEqual([
      { day: "2025-02-01", workspaceId: ws.acme, workspaceSlug: "acme", rendersSucceeded: 1, rendersFailed: 0, rendersCancelled: 1, pages: 1, outputBytes: 10 },
      { day: "2025-03-01", workspaceId: ws.beta, workspaceSlug: "beta", rendersSucceeded: 1, rendersFailed: 0, rendersCancelled: 0, pages: 2, outputBytes: 20 },
    ]);
  });

  test("--workspace keeps one workspace's rows, by id or by slug", () => {
    const bySlug = JSON.parse(ok(["usage", "export", "--from", "2025-01-01", "--to", "2025-12-31", "--format", "json", "--workspace", "beta"]));
    expect(bySlug.map((r: any) => [r.day, r.workspaceSlug])).toEqual([
      ["2025-01-31", "beta"],
      ["2025-03-01", "beta"],
    ]);
    const byId = JSON.parse(ok(["usage", "export", "--from", "2025-01-01", "--to", "2025-12-31", "--format", "json", "--workspace", ws.beta]));
    expect(byId).toEqual(bySlug);
    expect(badInput(["usage", "export", "--from", "2025-01-01", "--to", "2025-12-31", "--workspace", "nope"])).toContain("Workspace nope was not found");
  });

  test("a range without usage prints the header alone, or an empty array", () => {
    expect(ok(["usage", "export", "--from", "2024-01-01", "--to", "2024-12-31"])).toBe(HEADER + "\r\n");
    expect(JSON.parse(ok(["usage", "export", "--from", "2024-01-01", "--to", "2024-12-31", "--format", "json"]))).toEqual([]);
  });

  test("without --from and --to it exports the current UTC month", () => {
    expect(ok(["usage", "export"]).startsWith(HEADER + "\r\n")).toBe(true);
  });

  test("bad days, a reversed range, a range over 366 days and an unknown format exit 2 with one line", () => {
    expect(badInput(["usage", "export", "--from", "2025-02-29", "--to", "2025-03-01"])).toContain("--from: must be a calendar day");
    expect(badInput(["usage", "export", "--from", "2025-01-01", "--to", "01/02/2025"])).toContain("--to: must be a calendar day");
    expect(badInput(["usage", "export", "--from", "2025-03-02", "--to", "2025-03-01"])).toContain("--to: must not be before from");
    expect(badInput(["usage", "export", "--from", "2024-01-01", "--to", "2025-01-01"])).toContain("at most 366 days");
    expect(ok(["usage", "export", "--from", "2024-01-01", "--to", "2024-12-31"])).toStartWith(HEADER);
    expect(badInput(["usage", "export", "--from", "2025-01-01", "--to", "2025-01-31", "--format", "xml"])).toContain("--format must be csv or json");
  });

  test("the export writes nothing to the store", async () => {
    const snapshot = () =>
      withStore(async (store) => ({
        usage: await store.all("SELECT * FROM usage_days ORDER BY workspace_id, day"),
        audit: (await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM audit_events"))!.n,
        migrations: await store.all("SELECT * FROM schema_migrations ORDER BY version"),
      }));
    const before = await snapshot();
    ok(["usage", "export", "--from", "2025-01-01", "--to", "2025-12-31", "--format", "json"]);
    expect(await snapshot()).toEqual(before);
  });
});

describe("monthsOf", () => {
  test("cuts a range into calendar months, both ends kept, covering every day once", () => {
    expect([...monthsOf({ from: "2024-01-15", to: "2024-03-02" })]).toEqual([
      { from: "2024-01-15", to: "2024-01-31" },
      { from: "2024-02-01", to: "2024-02-29" },
      { from: "2024-03-01", to: "2024-03-02" },
    ]);
    expect([...monthsOf({ from: "2025-12-31", to: "2026-01-01" })]).toEqual([
      { from: "2025-12-31", to: "2025-12-31" },
      { from: "2026-01-01", to: "2026-01-01" },
    ]);
    expect([...monthsOf({ from: "0050-02-03", to: "0050-02-05" })]).toEqual([{ from: "0050-02-03", to: "0050-02-05" }]);
    const year = { from: "2025-03-10", to: "2026-03-09" };
    expect([...monthsOf(year)].reduce((sum, m) => sum + daysIn(m), 0)).toBe(daysIn(year));
    expect(daysIn(year)).toBe(365);
  });
});
