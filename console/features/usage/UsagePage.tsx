/** UsagePage: the workspace's usage by day (spec 2.10) as a table and a chart, and a CSV download of it. */
import { useState } from "react";
import type { UsageDay, UsageReport } from "../../../src/modules/usage/model";
import { dailySeries, useUsage, utcDay } from "../../api/usage";
import { DailyChart } from "../../components/DailyChart";
import { formatBytes } from "../../components/format";
import { QueryState } from "../../components/QueryState";
import { Table, type Column } from "../../components/Table";

const COLUMNS = ["day", "rendersSucceeded", "rendersFailed", "rendersCancelled", "pages", "outputBytes"] as const satisfies readonly (keyof UsageReport["days"][number])[];

const DAY_COLUMNS: Column<UsageDay>[] = [
  { header: "Day", cell: (d) => d.day },
  { header: "Succeeded", cell: (d) => d.rendersSucceeded },
  { header: "Failed", cell: (d) => d.rendersFailed },
  { header: "Cancelled", cell: (d) => d.rendersCancelled },
  { header: "Pages", cell: (d) => d.pages },
  { header: "Output", cell: (d) => formatBytes(d.outputBytes) },
];

function saveCsv(report: UsageReport): void {
  const lines = [COLUMNS.join(","), ...report.days.map((d) => COLUMNS.map((c) => d[c]).join(","))];
  const url = URL.createObjectURL(new Blob([lines.join("\n") + "\n"], { type: "text/csv" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = `usage-${report.from}-${report.to}.csv`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** UsagePage shows usage by day for a range of days. */
export function UsagePage() {
  const [from, setFrom] = useState(utcDay(-29));
  const [to, setTo] = useState(utcDay());
  const usage = useUsage(from, to);
  return (
    <section>
      <h1>Usage</h1>
      <div className="grid filters">
        <label>
          From
          <input type="date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        </label>
        <label>
          To
          <input type="date" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
        </label>
      </div>
      <QueryState query={usage}>
        {(u) => (
          <>
            <p>
              {u.totals.rendersSucceeded} renders succeeded (test renders included), {u.totals.pages} pages, {formatBytes(u.totals.outputBytes)} from {u.from} to {u.to}.{" "}
              <button type="button" className="secondary" onClick={() => saveCsv(u)}>
                Download CSV
              </button>
            </p>
            <p className="note">
              Usage counts every render that ended, test renders included; the Overview's documents this month count real documents only, as the
              documentsPerMonth allowance does.
            </p>
            {u.days.length === 0 ? (
              <p className="empty">
                No render ended from {u.from} to {u.to}: there is no day to show. Choose other dates, or make a render.
              </p>
            ) : (
              <>
                <DailyChart {...dailySeries(u, "rendersSucceeded")} label="Renders succeeded" />
                <Table columns={DAY_COLUMNS} items={u.days} rowKey={(d) => d.day} />
              </>
            )}
          </>
        )}
      </QueryState>
    </section>
  );
}
