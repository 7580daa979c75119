/** MembersPage: the workspace's members (owners and admins) — add by e-mail with a role (a new user's one-time
 * password is shown once), change role, remove. */
import { useState } from "react";
import type { Role } from "../../../src/auth/scopes";
import { ConfirmButton } from "../../components/Confirm";
import { ErrorNotice, fieldError } from "../../components/ErrorNotice";
import { formatDate } from "../../components/format";
import { Pager, usePager } from "../../components/Pager";
import { QueryState } from "../../components/QueryState";
import { SecretOnce } from "../../components/SecretOnce";
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

function MemberRow({ m }: { m: Member }) {
  const action = useMemberAction();
  return (
    <tr>
      <td>{m.email}</td>
      <td>{m.name ?? "—"}</td>
      <td>
        <select aria-label={`Role of ${m.email}`} value={m.role} onChange={(e) => action.mutate({ userId: m.userId, role: e.currentTarget.value as Role })}>
          {ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
        <ErrorNotice error={action.error} />
      </td>
      <td>{formatDate(m.createdAt)}</td>
      <td>
        <ConfirmButton label={`Remove ${m.email}`} confirmLabel="Remove" question={`Remove ${m.email} from this workspace?`} onConfirm={() => action.mutate({ userId: m.userId, role: null })} />
      </td>
    </tr>
  );
}

/** MembersPage lists, adds, re-roles and removes the workspace's members. */
export function MembersPage() {
  const pager = usePager();
  const members = useMembers(pager.cursor);
  const [password, setPassword] = useState<string | null>(null);
  return (
    <section>
      <h1>Members</h1>
      {password ? <SecretOnce label="One-time password" secret={password} onDone={() => setPassword(null)} /> : null}
      <QueryState query={members} isEmpty={(p) => p.items.length === 0} empty="No members.">
        {(page) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Email</th>
                  <th>Name</th>
                  <th>Role</th>
                  <th>Joined</th>
                  <th>Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((m) => (
                  <MemberRow key={m.userId} m={m} />
                ))}
              </tbody>
            </table>
            <Pager pager={pager} nextCursor={page.nextCursor} />
          </div>
        )}
      </QueryState>
      <AddMember onPassword={setPassword} />
    </section>
  );
}
