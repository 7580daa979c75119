/** ApiKeysPage: the workspace's API keys — list, create (secret shown once), rotate, revoke, delete (spec 4.4). */
import { useState } from "react";
import type { ApiKey } from "../../../src/modules/api-keys/model";
import type { Scope } from "../../../src/auth/scopes";
import { ConfirmButton } from "../../components/Confirm";
import { ErrorNotice, fieldError } from "../../components/ErrorNotice";
import { formatDate } from "../../components/format";
import { PagedTable } from "../../components/PagedTable";
import { usePager } from "../../components/Pager";
import { SecretOnce } from "../../components/SecretOnce";
import type { Column } from "../../components/Table";
import { useApiKeys, useCreateApiKey, useKeyAction } from "./api";

// A record over the scope union (spec 5.2): the type checker tells when a scope is added.
const SCOPE_SET: Record<Scope, true> = {
  "template:read": true,
  "template:write": true,
  "template:publish": true,
  "template:content": true,
  "render:create": true,
  "render:read": true,
  "render:cancel": true,
  "asset:manage": true,
  "audit:read": true,
  "usage:read": true,
  "webhook:manage": true,
  "certificate:manage": true,
  "destination:manage": true,
  "admin:manage": true,
};
const SCOPES = Object.keys(SCOPE_SET) as Scope[];

// Scopes grouped by their resource, the part before the colon (spec 5.2).
const GROUPS = [...new Set(SCOPES.map((s) => s.split(":")[0]))].map((group) => ({ group, scopes: SCOPES.filter((s) => s.startsWith(`${group}:`)) }));

function statusOf(k: ApiKey): string {
  if (!k.enabled) return "revoked";
  if (k.expiresAt && Date.parse(k.expiresAt) <= Date.now()) return "expired";
  return "active";
}

function CreateKeyForm({ onSecret }: { onSecret: (secret: string) => void }) {
  const create = useCreateApiKey();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["render:create", "render:read"]);
  const [days, setDays] = useState("");
  const toggle = (s: Scope) => setScopes(scopes.includes(s) ? scopes.filter((x) => x !== s) : [...scopes, s]);
  return (
    <form
      aria-label="Create key"
      onSubmit={(e) => {
        e.preventDefault();
        const expiresInDays = days ? Number(days) : undefined;
        create.mutate({ name, scopes, expiresInDays }, { onSuccess: (k) => (onSecret(k.secret), setName("")) });
      }}
    >
      <h2>Create key</h2>
      <label>
        Name
        <input required maxLength={64} value={name} onChange={(e) => setName(e.currentTarget.value)} aria-invalid={fieldError(create.error, "/name") ? true : undefined} />
      </label>
      <div className="scope-groups">
        {GROUPS.map(({ group, scopes: inGroup }) => (
          <fieldset key={group}>
            <legend>{group}</legend>
            {inGroup.map((s) => (
              <label key={s}>
                <input type="checkbox" checked={scopes.includes(s)} onChange={() => toggle(s)} />
                {s}
              </label>
            ))}
          </fieldset>
        ))}
      </div>
      <label>
        Expires in days
        <input type="number" min={1} max={365} value={days} placeholder="never" onChange={(e) => setDays(e.currentTarget.value)} />
      </label>
      <ErrorNotice error={create.error} />
      <button type="submit" aria-busy={create.isPending}>
        Create key
      </button>
    </form>
  );
}

/** ApiKeysPage lists the keys and creates, rotates, revokes and deletes them. */
export function ApiKeysPage() {
  const pager = usePager();
  const keys = useApiKeys(pager.cursor);
  const action = useKeyAction();
  const [secret, setSecret] = useState<string | null>(null);
  const columns: Column<ApiKey>[] = [
    { header: "Name", cell: (k) => k.name },
    { header: "Start", cell: (k) => <code>{k.start}…</code> },
    { header: "Scopes", cell: (k) => k.scopes.join(", "), className: "scopes" },
    { header: "Created", cell: (k) => formatDate(k.createdAt) },
    { header: "Last used", cell: (k) => formatDate(k.lastUsedAt) },
    { header: "Expires", cell: (k) => (k.expiresAt ? formatDate(k.expiresAt) : "never") },
    { header: "Status", cell: statusOf },
    {
      header: "Actions",
      className: "actions",
      cell: (k) =>
        k.managed ? (
          <small>managed</small>
        ) : (
          <>
            <ConfirmButton
              label={`Rotate ${k.name}`}
              text="Rotate"
              question={`Rotate "${k.name}"? Its old secret stops working at once; the new one is shown once.`}
              confirmLabel="Rotate"
              disabled={!k.enabled}
              onConfirm={() => action.mutate({ id: k.id, action: "rotate" }, { onSuccess: (r) => r && "secret" in r && setSecret(r.secret) })}
            />
            <ConfirmButton
              label={`Revoke ${k.name}`}
              text="Revoke"
              question={`Revoke "${k.name}"? Programs using it are refused from now on.`}
              confirmLabel="Revoke"
              disabled={!k.enabled}
              onConfirm={() => action.mutate({ id: k.id, action: "revoke" })}
            />
            <ConfirmButton label={`Delete ${k.name}`} text="Delete" question={`Delete "${k.name}"? This cannot be undone.`} confirmLabel="Delete" onConfirm={() => action.mutate({ id: k.id, action: "delete" })} />
          </>
        ),
    },
  ];
  return (
    <section>
      <h1>API keys</h1>
      <p>Programs use a key in the <code>x-api-key</code> header. A key holds only the scopes ticked for it.</p>
      {secret ? <SecretOnce secret={secret} onDone={() => setSecret(null)} /> : null}
      <ErrorNotice error={action.error} />
      <PagedTable query={keys} pager={pager} empty="No keys yet: create the first one below." columns={columns} rowKey={(k) => k.id} />
      <CreateKeyForm onSecret={setSecret} />
    </section>
  );
}
