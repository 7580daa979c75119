/** UsagePage: the workspace's usage by day (spec 2.10) as a table and a chart, and a CSV download of it. */
import { useState } from "react";
import type { UsageReport } from "../../../src/modules/usage/model";
import { dailySeries, useUsage, utcDay } from "../../api/usage";
import { DailyChart } from "../../components/DailyChart";
import { formatBytes } from "../../components/format";
import { QueryState } from "../../components/QueryState";

const COLUMNS = ["day", "rendersSucceeded", "rendersFailed", "rendersCancelled", "pages", "outputBytes"] as const satisfies readonly (keyof UsageReport["days"][number])[];

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
              {u.totals.rendersSucceeded} documents, {u.totals.pages} pages, {formatBytes(u.totals.outputBytes)} from {u.from} to {u.to}.{" "}
              <button type="button" className="secondary" onClick={() => saveCsv(u)}>
                Download CSV
              </button>
            </p>
            <DailyChart {...dailySeries(u, "rendersSucceeded")} label="Documents" />
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Day</th>
                    <th>Succeeded</th>
                    <th>Failed</th>
                    <th>Cancelled</th>
                    <th>Pages</th>
                    <th>Output</th>
                  </tr>
                </thead>
                <tbody>
                  {u.days.map((d) => (
                    <tr key={d.day}>
                      <td>{d.day}</td>
                      <td>{d.rendersSucceeded}</td>
                      <td>{d.rendersFailed}</td>
                      <td>{d.rendersCancelled}</td>
                      <td>{d.pages}</td>
                      <td>{formatBytes(d.outputBytes)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </QueryState>
    </section>
  );
}
