/** WebhooksPage: the workspace's webhook endpoints (owners and admins only, spec 5.3.8) — create, edit, delete,
 * rotate the secret (shown once) — and one endpoint's deliveries with status, attempts and response codes. */
import { useState } from "react";
import { Link, useLocation } from "wouter";
import { ConfirmButton } from "../../components/Confirm";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatDate } from "../../components/format";
import { Pager, usePager } from "../../components/Pager";
import { QueryState } from "../../components/QueryState";
import { SecretOnce } from "../../components/SecretOnce";
import { useCreateEndpoint, useDeliveries, useEndpoint, useEndpointAction, useEndpoints, useUpdateEndpoint } from "./api";
import { EndpointForm } from "./EndpointForm";

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
      <QueryState query={endpoints} isEmpty={(p) => p.items.length === 0} empty="No endpoints yet: add one below.">
        {(page) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>URL</th>
                  <th>Events</th>
                  <th>Enabled</th>
                  <th>Created</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <Link href={`/webhooks/${e.id}`}>{e.url}</Link>
                      {e.description ? <small> — {e.description}</small> : null}
                    </td>
                    <td>{e.eventTypes.join(", ")}</td>
                    <td>{e.enabled ? "yes" : "no"}</td>
                    <td>{formatDate(e.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryState>
      <h2>Add endpoint</h2>
      <EndpointForm submitLabel="Add endpoint" pending={create.isPending} error={create.error} onSubmit={(body) => create.mutate(body, { onSuccess: (e) => setSecret(e.secret) })} />
    </section>
  );
}

function Deliveries({ id }: { id: string }) {
  const pager = usePager();
  const deliveries = useDeliveries(id, pager.cursor);
  return (
    <QueryState query={deliveries} isEmpty={(p) => p.items.length === 0} empty="No deliveries yet.">
      {(page) => (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Event</th>
                <th>Render</th>
                <th>Status</th>
                <th>Attempts</th>
                <th>Response</th>
                <th>Last attempt</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((d) => (
                <tr key={d.id}>
                  <td>{d.eventType}</td>
                  <td>
                    <Link href={`/renders/${d.renderId}`}>{d.renderId}</Link>
                  </td>
                  <td>{d.status}</td>
                  <td>{d.attempts}</td>
                  <td>{d.lastStatusCode ?? d.lastError ?? "—"}</td>
                  <td>{formatDate(d.lastAttemptAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager pager={pager} nextCursor={page.nextCursor} />
        </div>
      )}
    </QueryState>
  );
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
