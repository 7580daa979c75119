/** AllowancesForm: a workspace's seven allowances (spec 2.2) — read-only for its members and admins (8.1.4),
 * editable by a platform administrator, with suspend and restore, after a confirmation. */
import { useState } from "react";
import type { AllowancesReplacement, CompanyAllowances } from "../../src/modules/workspaces/model";
import { useReplaceAllowances } from "../api/allowances";
import { ConfirmButton } from "./Confirm";
import { ErrorNotice, fieldError } from "./ErrorNotice";

type NumberField = Exclude<keyof CompanyAllowances, "suspended">;

// The labels are the stable accessible names of issue 11; `nullable` ones may be left empty for no limit.
const FIELDS: { field: NumberField; label: string; nullable: boolean }[] = [
  { field: "maxActiveRenders", label: "Max active renders", nullable: false },
  { field: "rendersPerMinute", label: "Renders per minute", nullable: false },
  { field: "documentsPerMonth", label: "Documents per month", nullable: true },
  { field: "maxStorageBytes", label: "Max storage bytes", nullable: true },
  { field: "testRendersPerDay", label: "Test renders per day", nullable: true },
  { field: "templateConversionsPerMonth", label: "Template conversions per month", nullable: true },
];

type Draft = Record<NumberField, string> & { suspended: boolean };

function draftOf(a: CompanyAllowances): Draft {
  const d = { suspended: a.suspended } as Draft;
  for (const { field } of FIELDS) d[field] = a[field] === null ? "" : String(a[field]);
  return d;
}

function bodyOf(d: Draft): AllowancesReplacement {
  const number = (v: string) => (v.trim() === "" ? null : Number(v));
  return {
    maxActiveRenders: Number(d.maxActiveRenders),
    rendersPerMinute: Number(d.rendersPerMinute),
    documentsPerMonth: number(d.documentsPerMonth),
    maxStorageBytes: number(d.maxStorageBytes),
    testRendersPerDay: number(d.testRendersPerDay),
    templateConversionsPerMonth: number(d.templateConversionsPerMonth),
    suspended: d.suspended,
  };
}

interface Props {
  workspaceId: string;
  workspaceName: string;
  allowances: CompanyAllowances;
  editable: boolean;
}

/** AllowancesForm shows one workspace's allowances, editable when `editable`. */
export function AllowancesForm({ workspaceId, workspaceName, allowances, editable }: Props) {
  const replace = useReplaceAllowances(workspaceId);
  const [draft, setDraft] = useState(() => draftOf(allowances));
  // The server's values change while the form is open (another administrator, the CLI): a field not edited here takes
  // the new value, so that saving does not write the old one back; an edited field keeps the edit.
  const [base, setBase] = useState(allowances);
  if (base !== allowances) {
    const [was, now] = [draftOf(base), draftOf(allowances)];
    setDraft(Object.fromEntries(Object.entries(draft).map(([field, value]) => [field, value === was[field as keyof Draft] ? now[field as keyof Draft] : value])) as Draft);
    setBase(allowances);
  }
  const suspending = draft.suspended !== allowances.suspended;
  return (
    <form aria-label={`Allowances of ${workspaceName}`} onSubmit={(e) => e.preventDefault()}>
      <div className="grid-2">
        {FIELDS.map(({ field, label, nullable }) => {
          const error = fieldError(replace.error, `/${field}`);
          return (
            <label key={field}>
              {label}
              <input
                type="number"
                min={nullable ? 0 : 1}
                disabled={!editable}
                required={!nullable}
                placeholder={nullable ? "no limit" : undefined}
                value={draft[field]}
                aria-invalid={error ? true : undefined}
                onChange={(e) => setDraft({ ...draft, [field]: e.currentTarget.value })}
              />
              {error ? <small>{error}</small> : null}
            </label>
          );
        })}
      </div>
      <label>
        <input type="checkbox" role="switch" disabled={!editable} checked={draft.suspended} onChange={(e) => setDraft({ ...draft, suspended: e.currentTarget.checked })} />
        Suspended
      </label>
      {editable ? (
        <>
          <ErrorNotice error={replace.error} />
          {replace.isSuccess ? <p role="status">Allowances saved.</p> : null}
          <ConfirmButton
            label="Save allowances"
            className="primary"
            question={
              suspending
                ? `${draft.suspended ? "Suspend" : "Restore"} ${workspaceName}? ${draft.suspended ? "It will render nothing and its API keys will be refused; its members can still sign in, read and export." : "Its renders and API keys work again."}`
                : `Replace the allowances of ${workspaceName}?`
            }
            confirmLabel={suspending ? (draft.suspended ? "Suspend" : "Restore") : "Save"}
            onConfirm={() => replace.mutate(bodyOf(draft))}
          />
        </>
      ) : (
        <p>
          <small>Only a platform administrator can change these.</small>
        </p>
      )}
    </form>
  );
}
