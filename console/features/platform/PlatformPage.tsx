/** PlatformPage (platform administrators): workspaces by search with their allowances, each editable (suspend and
 * restore included), and the platform's usage by workspace (spec 4.2, 4.3). */
import { useState } from "react";
import type { PlatformUsageItem, PlatformUsagePage } from "../../../src/modules/usage/model";
import type { PlatformWorkspace } from "../../../src/modules/workspaces/model";
import type { Page } from "../../api/client";
import { usePage } from "../../api/page";
import { utcDay } from "../../api/usage";
import { AllowancesForm } from "../../components/AllowancesForm";
import { formatBytes, formatLimit } from "../../components/format";
import { Pager, usePager } from "../../components/Pager";
import { PagedTable } from "../../components/PagedTable";
import { QueryState } from "../../components/QueryState";
import type { Column } from "../../components/Table";

function useWorkspaces(search: string, cursor?: string) {
  return usePage<Page<PlatformWorkspace>>(["platform", "workspaces"], "/v1/platform/workspaces", { search, cursor, limit: 25 });
}

function usePlatformUsage(cursor?: string) {
  return usePage<PlatformUsagePage>(["platform", "usage"], "/v1/platform/usage", { from: utcDay(-29), to: utcDay(), cursor, limit: 25 });
}

const USAGE_COLUMNS: Column<PlatformUsageItem>[] = [
  { header: "Workspace", cell: (u) => u.name },
  { header: "Documents", cell: (u) => u.rendersSucceeded },
  { header: "Failed", cell: (u) => u.rendersFailed },
  { header: "Pages", cell: (u) => u.pages },
  { header: "Output", cell: (u) => formatBytes(u.outputBytes) },
];

function PlatformUsage() {
  const pager = usePager();
  const usage = usePlatformUsage(pager.cursor);
  return <PagedTable query={usage} pager={pager} empty="No workspace rendered anything in the last 30 days." columns={USAGE_COLUMNS} rowKey={(u) => u.workspaceId} />;
}

/** PlatformPage lists workspaces with their allowances, and the platform's usage. */
export function PlatformPage() {
  const pager = usePager();
  const [search, setSearch] = useState("");
  const [editing, setEditing] = useState<string | null>(null);
  const workspaces = useWorkspaces(search, pager.cursor);
  return (
    <section>
      <h1>Platform</h1>
      <label>
        Search workspaces
        <input type="search" value={search} placeholder="name or slug" onChange={(e) => (pager.reset(), setSearch(e.currentTarget.value))} />
      </label>
      <QueryState query={workspaces} isEmpty={(p) => p.items.length === 0} empty="No workspace matches.">
        {(page) => (
          <>
            {page.items.map((w) => (
              <article key={w.id} className="workspace">
                <header>
                  <strong>{w.name}</strong> <code>{w.slug}</code> {w.suspended ? <mark>suspended</mark> : null}
                </header>
                <p>
                  Documents per month: {formatLimit(w.documentsPerMonth)}; max active renders: {w.maxActiveRenders}; storage: {formatLimit(w.maxStorageBytes, formatBytes)}.
                </p>
                {editing === w.id ? (
                  <AllowancesForm key={w.id} workspaceId={w.id} workspaceName={w.name} allowances={w} editable />
                ) : (
                  <button type="button" className="secondary" onClick={() => setEditing(w.id)}>
                    Edit allowances of {w.name}
                  </button>
                )}
              </article>
            ))}
            <Pager pager={pager} nextCursor={page.nextCursor} />
          </>
        )}
      </QueryState>
      <h2>Platform usage, last 30 days</h2>
      <PlatformUsage />
    </section>
  );
}
