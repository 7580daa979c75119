/** cli/usage: `renderd usage export` — the daily usage record (spec 2.10) of every workspace, or one, as CSV or JSON. */
import { Command } from "commander";
import { ApiError } from "../src/errors";
import { systemClock } from "../src/lib/clock";
import type { UsageExportRow } from "../src/modules/usage/model";
import { exportUsage, MAX_RANGE_DAYS, resolveRange, type UsageRange } from "../src/modules/usage/service";
import { getWorkspace } from "../src/modules/workspaces/service";
import { guard, storeOptions, withStore } from "./context";
import { badInput } from "./input";
import { progressBar } from "./progress";

interface ExportFlags {
  from?: string;
  to?: string;
  format: string;
  workspace?: string;
  dataDir?: string;
}

const FORMATS = ["csv", "json"] as const;
const DAY_MS = 24 * 60 * 60 * 1000;

const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** daysIn counts the days of a range, both ends included. */
export function daysIn(range: UsageRange): number {
  return (dayMs(range.to) - dayMs(range.from)) / DAY_MS + 1;
}

/** monthsOf cuts a range into its calendar months, in order: the export reads one at a time so a long one shows progress. */
export function* monthsOf(range: UsageRange): Generator<UsageRange> {
  let from = range.from;
  while (from <= range.to) {
    // setUTCMonth keeps years 0000..0099 literal, unlike Date.UTC.
    const end = new Date(dayMs(from));
    end.setUTCMonth(end.getUTCMonth() + 1, 0);
    const monthEnd = end.toISOString().slice(0, 10);
    const to = monthEnd < range.to ? monthEnd : range.to;
    yield { from, to };
    from = new Date(dayMs(to) + DAY_MS).toISOString().slice(0, 10);
  }
}
const COLUMNS: readonly (keyof UsageExportRow)[] = ["day", "workspaceId", "workspaceSlug", "rendersSucceeded", "rendersFailed", "rendersCancelled", "pages", "outputBytes"];

// RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** toCsv renders export rows as RFC 4180 CSV: a header line, then one record per row, every line ending in CRLF. */
export function toCsv(rows: UsageExportRow[]): string {
  const lines = [COLUMNS.join(","), ...rows.map((r) => COLUMNS.map((c) => csvField(r[c])).join(","))];
  return lines.map((l) => l + "\r\n").join("");
}

// The range is checked before the store is opened, and its errors name the flags rather than the API's query pointers.
function rangeOf(flags: ExportFlags): UsageRange {
  try {
    return resolveRange(flags, systemClock.now());
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    throw badInput(e.message, e.details?.map((d) => ({ path: `--${d.path?.replace(/^\//, "")}`, message: d.message })));
  }
}

/** usageCommand builds `renderd usage` and its subcommand `export`. */
export function usageCommand(): Command {
  const cmd = new Command("usage").description("the daily usage record of the workspaces (spec 2.10)");

  cmd.addCommand(
    storeOptions(
      new Command("export")
        .description("print one row per workspace and UTC day with usage in a range, as CSV or JSON (reads only)")
        .option("--from <YYYY-MM-DD>", "first day, included (default: the first day of the current UTC month)")
        .option("--to <YYYY-MM-DD>", "last day, included (default: the last day of the current UTC month)")
        .option("--format <csv|json>", "csv (RFC 4180, with a header line) or json (an array)", "csv")
        .option("--workspace <id|slug>", "only this workspace's rows (default: every workspace)")
        .addHelpText(
          "after",
          [
            "",
            `The range covers at most ${MAX_RANGE_DAYS} days, both ends counted; days without usage have no row.`,
            "Rows are ordered by day, then workspace id. Columns:",
            "  " + COLUMNS.join(", "),
          ].join("\n"),
        ),
      false,
    ).action(
      guard(async (flags: ExportFlags) => {
        if (!(FORMATS as readonly string[]).includes(flags.format)) throw badInput(`--format must be csv or json (got ${JSON.stringify(flags.format)}).`);
        const range = rangeOf(flags);
        await withStore(async ({ store }) => {
          const workspaceId = flags.workspace === undefined ? undefined : (await getWorkspace(store, flags.workspace)).id;
          const bar = progressBar((n) => `${n} days`);
          const rows: UsageExportRow[] = [];
          let done = 0;
          for (const month of monthsOf(range)) {
            rows.push(...await exportUsage(store, month, workspaceId));
            bar.update("usage", (done += daysIn(month)), daysIn(range));
          }
          bar.end();
          process.stdout.write(flags.format === "csv" ? toCsv(rows) : JSON.stringify(rows, null, 2) + "\n");
        }, flags.dataDir);
      }),
    ),
  );

  return cmd;
}
