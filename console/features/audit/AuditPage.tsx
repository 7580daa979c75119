/** AuditPage: the workspace's audit events (spec 4.6) with filters — action, actor type, resource type and id, date
 * range — and paging. */
import { useState } from "react";
import type { AuditEvent, AuditQuery } from "../../../src/modules/audit/model";
import { currentWorkspace, type Page } from "../../api/client";
import { usePage } from "../../api/page";
import { formatDate } from "../../components/format";
import { PagedTable } from "../../components/PagedTable";
import { usePager } from "../../components/Pager";
import type { Column } from "../../components/Table";

type Filters = Pick<AuditQuery, "action" | "actorType" | "resourceType" | "resourceId" | "from" | "to">;

/** useAuditEvents lists one page of events matching the filters. */
function useAuditEvents(filters: Filters, cursor?: string) {
  return usePage<Page<AuditEvent>>(["audit", currentWorkspace()], "/v1/audit-events", { ...filters, cursor, limit: 50 });
}

// A date input gives a day; the API takes instants. The range covers whole UTC days.
const startOf = (day: string) => (day ? `${day}T00:00:00Z` : undefined);
const endOf = (day: string) => (day ? `${day}T23:59:59.999Z` : undefined);

const COLUMNS: Column<AuditEvent>[] = [
  { header: "When", cell: (e) => formatDate(e.createdAt) },
  { header: "Actor", cell: (e) => <>{e.actorType}: {e.actorEmail ?? e.actorName ?? e.actorId}</> },
  { header: "Action", cell: (e) => e.action },
  {
    header: "Resource",
    cell: (e) => (
      <>
        {e.resourceType} {e.resourceName ?? e.resourceId}
        {e.resourceDeleted ? " (deleted)" : ""}
      </>
    ),
  },
  { header: "Request id", cell: (e) => <code>{e.requestId}</code> },
];

/** AuditPage lists audit events with filters and paging. */
export function AuditPage() {
  const pager = usePager();
  const [form, setForm] = useState({ action: "", actorType: "", resourceType: "", resourceId: "", from: "", to: "" });
  const [filters, setFilters] = useState<Filters>({});
  const events = useAuditEvents(filters, pager.cursor);
  const field = (name: keyof typeof form) => ({ value: form[name], onChange: (e: { currentTarget: { value: string } }) => setForm({ ...form, [name]: e.currentTarget.value }) });
  return (
    <section>
      <h1>Audit log</h1>
      <form
        aria-label="Filter events"
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          pager.reset();
          setFilters({
            action: form.action || undefined,
            actorType: (form.actorType || undefined) as AuditQuery["actorType"],
            resourceType: form.resourceType || undefined,
            resourceId: form.resourceId || undefined,
            from: startOf(form.from),
            to: endOf(form.to),
          });
        }}
      >
        <div className="grid-3">
          <label>
            Action
            <input placeholder="api_key.created" {...field("action")} />
          </label>
          <label>
            Actor type
            <select {...field("actorType")}>
              <option value="">any</option>
              <option value="user">user</option>
              <option value="api_key">api_key</option>
              <option value="system">system</option>
            </select>
          </label>
          <label>
            Resource type
            <input placeholder="template" {...field("resourceType")} />
          </label>
          <label>
            Resource id
            <input {...field("resourceId")} />
          </label>
          <label>
            From day
            <input type="date" {...field("from")} />
          </label>
          <label>
            To day
            <input type="date" {...field("to")} />
          </label>
        </div>
        <button type="submit">Apply filters</button>
      </form>
      <PagedTable query={events} pager={pager} empty="No events match these filters." columns={COLUMNS} rowKey={(e) => e.id} />
    </section>
  );
}
