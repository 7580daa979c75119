/** OverviewPage: the month's documents, active renders and storage against the allowances, documents per day for the
 * last 30 days, and recent failed renders. */
import { Link } from "wouter";
import type { Render } from "../../../src/modules/renders/model";
import { currentWorkspace, type Page } from "../../api/client";
import { usePage } from "../../api/page";
import { useRenderActivity, useRenderLimits } from "../../api/limits";
import { dailySeries, useUsage, utcDay } from "../../api/usage";
import { DailyChart } from "../../components/DailyChart";
import { ExportButton } from "../../components/ExportButton";
import { formatBytes, formatDate, formatLimit } from "../../components/format";
import { QueryState } from "../../components/QueryState";

function useRenderList(status: Render["status"], limit: number) {
  return usePage<Page<Render>>(["renders", currentWorkspace(), "overview"], "/v1/renders", { status, limit }, { refetchInterval: 5000 });
}

function Meter({ label, used, limit, format = String, note }: { label: string; used: number; limit: number | null; format?: (n: number) => string; note?: string }) {
  return (
    <article className="meter">
      <header>{label}</header>
      <p className="figure">
        {format(used)} <small>of {formatLimit(limit, format)}</small>
      </p>
      {limit ? <progress aria-label={label} value={Math.min(used, limit)} max={limit} /> : null}
      {note ? <small className="note">{note}</small> : null}
    </article>
  );
}

/** OverviewPage shows the workspace at a glance. */
export function OverviewPage() {
  const limits = useRenderLimits();
  const activity = useRenderActivity();
  const failed = useRenderList("failed", 5);
  const usage = useUsage(utcDay(-29), utcDay());
  const active = activity.data?.activeRenders ?? 0;
  return (
    <section>
      <h1>Overview</h1>
      <QueryState query={limits}>
        {(l) => (
          <div className="meters">
            <Meter label="Documents this month" used={l.documentsThisMonth} limit={l.documentsPerMonth} note="Real documents, as documentsPerMonth counts them: test renders and previews are not counted." />
            <Meter label="Active renders" used={active} limit={l.maxActiveRenders} />
            <Meter label="Storage" used={l.storageBytes} limit={l.maxStorageBytes} format={formatBytes} />
          </div>
        )}
      </QueryState>
      <h2>Renders succeeded per day, last 30 days</h2>
      <p className="note">Every render that succeeded, test renders included, as the Usage page counts them.</p>
      <QueryState query={usage}>
        {(u) => <DailyChart {...dailySeries(u, "rendersSucceeded")} label="Renders succeeded" />}
      </QueryState>
      <h2>Recent failed renders</h2>
      <QueryState query={failed} isEmpty={(p) => p.items.length === 0} empty="No failed renders.">
        {(page) => (
          <ul>
            {page.items.map((r) => (
              <li key={r.id}>
                <Link href={`/renders/${r.id}`}>{r.id}</Link> {formatDate(r.finishedAt)}: {r.error?.message ?? "failed"}
              </li>
            ))}
          </ul>
        )}
      </QueryState>
      <h2>Your data</h2>
      <p>Templates with their versions, renders' and assets' records, the audit log and usage, as one JSON document.</p>
      <ExportButton />
    </section>
  );
}
