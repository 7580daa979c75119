/** WebhooksPage: the workspace's webhook endpoints (owners and admins only, spec 5.3.8) — create, edit, delete,
 * rotate the secret (shown once) — and one endpoint's deliveries with status, attempts and response codes. */
import { useState } from "react";
import { Link, useLocation } from "wouter";
import { ConfirmButton } from "../../components/Confirm";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatDate } from "../../components/format";
import { PagedTable } from "../../components/PagedTable";
import { usePager } from "../../components/Pager";
import { QueryState } from "../../components/QueryState";
import { SecretOnce } from "../../components/SecretOnce";
import type { Column } from "../../components/Table";
import type { WebhookDelivery, WebhookEndpoint } from "../../../src/modules/webhook-endpoints/model";
import { useCreateEndpoint, useDeliveries, useEndpoint, useEndpointAction, useEndpoints, useUpdateEndpoint } from "./api";
import { EndpointForm } from "./EndpointForm";

const ENDPOINT_COLUMNS: Column<WebhookEndpoint>[] = [
  {
    header: "URL",
    cell: (e) => (
      <>
        <Link href={`/webhooks/${e.id}`}>{e.url}</Link>
        {e.description ? <small> — {e.description}</small> : null}
      </>
    ),
  },
  { header: "Events", cell: (e) => e.eventTypes.join(", ") },
  { header: "Enabled", cell: (e) => (e.enabled ? "yes" : "no") },
  { header: "Created", cell: (e) => formatDate(e.createdAt) },
];

const DELIVERY_COLUMNS: Column<WebhookDelivery>[] = [
  { header: "Event", cell: (d) => d.eventType },
  { header: "Render", cell: (d) => <Link href={`/renders/${d.renderId}`}>{d.renderId}</Link> },
  { header: "Status", cell: (d) => d.status },
  { header: "Attempts", cell: (d) => d.attempts },
  { header: "Response", cell: (d) => d.lastStatusCode ?? d.lastError ?? "—" },
  { header: "Last attempt", cell: (d) => formatDate(d.lastAttemptAt) },
];

/** WebhooksPage lists endpoints and adds one. */
export function WebhooksPage() {
  const endpoints = useEndpoints();
  const create = useCreateEndpoint();
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <section>
      <h1>Webhooks</h1>
      <p>renderd posts a signed event to each endpoint when a render ends.</p>
      {secret ? <SecretOnce label="Signing secret" secret={secret} onDone={() => setSecret(null)} /> : null}
      <PagedTable query={endpoints} empty="No endpoints yet: add one below." columns={ENDPOINT_COLUMNS} rowKey={(e) => e.id} />
      <h2>Add endpoint</h2>
      <EndpointForm submitLabel="Add endpoint" pending={create.isPending} error={create.error} onSubmit={(body) => create.mutate(body, { onSuccess: (e) => setSecret(e.secret) })} />
    </section>
  );
}

function Deliveries({ id }: { id: string }) {
  const pager = usePager();
  const deliveries = useDeliveries(id, pager.cursor);
  return <PagedTable query={deliveries} pager={pager} empty="No deliveries yet." columns={DELIVERY_COLUMNS} rowKey={(d) => d.id} />;
}

/** WebhookPage edits one endpoint, rotates its secret or deletes it, and lists its deliveries. */
export function WebhookPage({ id }: { id: string }) {
  const endpoint = useEndpoint(id);
  const update = useUpdateEndpoint(id);
  const action = useEndpointAction();
  const [secret, setSecret] = useState<string | null>(null);
  const [, navigate] = useLocation();
  return (
    <section>
      <p>
        <Link href="/webhooks">← Webhooks</Link>
      </p>
      <h1>Webhook endpoint</h1>
      {secret ? <SecretOnce label="Signing secret" secret={secret} onDone={() => setSecret(null)} /> : null}
      <ErrorNotice error={action.error} />
      <QueryState query={endpoint}>
        {(e) => (
          <>
            <div className="toolbar">
              <ConfirmButton
                label="Rotate secret"
                question="Rotate the signing secret? Signatures with the old one stop at once; the new one is shown once."
                confirmLabel="Rotate"
                onConfirm={() => action.mutate({ id, action: "rotate" }, { onSuccess: (r) => r && setSecret(r.secret) })}
              />
              <ConfirmButton
                label="Delete endpoint"
                question={`Delete the endpoint ${e.url}? Its pending deliveries are dropped.`}
                confirmLabel="Delete"
                onConfirm={() => action.mutate({ id, action: "delete" }, { onSuccess: () => navigate("/webhooks") })}
              />
            </div>
            <EndpointForm key={e.updatedAt} initial={e} submitLabel="Save endpoint" pending={update.isPending} error={update.error} onSubmit={(body) => update.mutate(body)} />
            {update.isSuccess ? <p role="status">Saved.</p> : null}
          </>
        )}
      </QueryState>
      <h2>Deliveries</h2>
      <Deliveries id={id} />
    </section>
  );
}
