/** MembersPage: the workspace's members (owners and admins) — add by e-mail with a role (a new user's one-time
 * password is shown once), change role, remove. */
import { useState } from "react";
import type { Role } from "../../../src/auth/scopes";
import { ConfirmButton } from "../../components/Confirm";
import { ErrorNotice, fieldError } from "../../components/ErrorNotice";
import { formatDate } from "../../components/format";
import { PagedTable } from "../../components/PagedTable";
import { usePager } from "../../components/Pager";
import { SecretOnce } from "../../components/SecretOnce";
import type { Column } from "../../components/Table";
import type { Member } from "../../../src/modules/members/model";
import { useAddMember, useMemberAction, useMembers } from "./api";

// A record over the role union: the type checker tells when a role is added.
const ROLE_SET: Record<Role, true> = { owner: true, admin: true, member: true };
const ROLES = Object.keys(ROLE_SET) as Role[];

function AddMember({ onPassword }: { onPassword: (password: string) => void }) {
  const add = useAddMember();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("member");
  const emailError = fieldError(add.error, "/email");
  return (
    <form
      aria-label="Add member"
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate(
          { email, role, name: name || undefined },
          {
            onSuccess: (r) => {
              if (r.oneTimePassword) onPassword(r.oneTimePassword);
              setEmail("");
              setName("");
            },
          },
        );
      }}
    >
      <h2>Add member</h2>
      <div className="grid-3">
        <label>
          Member email
          <input type="email" required value={email} aria-invalid={emailError ? true : undefined} onChange={(e) => setEmail(e.currentTarget.value)} />
          {emailError ? <small>{emailError}</small> : null}
        </label>
        <label>
          Member name
          <input value={name} placeholder="optional" onChange={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNotice error={add.error} />
      <button type="submit" aria-busy={add.isPending}>
        Add member
      </button>
    </form>
  );
}

/** MembersPage lists, adds, re-roles and removes the workspace's members. */
export function MembersPage() {
  const pager = usePager();
  const members = useMembers(pager.cursor);
  const action = useMemberAction();
  const [password, setPassword] = useState<string | null>(null);
  // One action for the table: its error is shown in the row it was for (its variables name the member).
  const errorOf = (m: Member) => (action.variables?.userId === m.userId ? action.error : null);
  // The select is controlled by the list, which has the old role until the change is saved and the list asked again:
  // meanwhile it shows the role chosen, not snap back to the one being replaced.
  const shownRole = (m: Member) => (action.isPending && action.variables?.userId === m.userId && action.variables.role) || m.role;
  const columns: Column<Member>[] = [
    { header: "Email", cell: (m) => m.email },
    { header: "Name", cell: (m) => m.name ?? "—" },
    {
      header: "Role",
      cell: (m) => (
        <>
          <select aria-label={`Role of ${m.email}`} value={shownRole(m)} onChange={(e) => action.mutate({ userId: m.userId, role: e.currentTarget.value as Role })}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
          <ErrorNotice error={errorOf(m)} />
        </>
      ),
    },
    { header: "Joined", cell: (m) => formatDate(m.createdAt) },
    {
      header: "Actions",
      cell: (m) => <ConfirmButton label={`Remove ${m.email}`} confirmLabel="Remove" question={`Remove ${m.email} from this workspace?`} onConfirm={() => action.mutate({ userId: m.userId, role: null })} />,
    },
  ];
  return (
    <section>
      <h1>Members</h1>
      {password ? <SecretOnce label="One-time password" secret={password} onDone={() => setPassword(null)} /> : null}
      <PagedTable query={members} pager={pager} empty="No members." columns={columns} rowKey={(m) => m.userId} />
      <AddMember onPassword={setPassword} />
    </section>
  );
}
