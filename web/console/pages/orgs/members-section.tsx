// An organisation's members: name, email and role; admins and owners change roles and remove
// members, and anyone may leave (unless they are the last owner).
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { changeMemberRole, removeMember } from "../../api/settings-api.ts";
import type { MemberDto } from "../../api/settings-types.ts";
import type { MeResponse, OrgDto, Role } from "../../api/types.ts";
import { paths } from "../../paths.ts";
import { loadSession } from "../../state/session.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { browserTimeZone, Day } from "../settings/dates.tsx";
import { useAction } from "../settings/use-action.ts";
import { grantableRoles, managesMembers, memberChangeBlock } from "./roles.ts";

interface MembersProps {
  me: MeResponse;
  org: OrgDto;
  members: MemberDto[];
  onChange(members: MemberDto[]): void;
}

function RoleCell({ member, org, blocked, busy, onChoose }: { member: MemberDto; org: OrgDto; blocked: string | null; busy: boolean; onChoose(role: Role): void }) {
  if (blocked) {
    return (
      <span class="member-role">
        {member.role}
        {managesMembers(org.role) && <span class="member-role-note">{blocked}</span>}
      </span>
    );
  }
  const roles = grantableRoles(org.role);
  return (
    <select
      class="input select role-select"
      aria-label={`Role of ${member.name}`}
      value={member.role}
      disabled={busy}
      onChange={(event) => onChoose(event.currentTarget.value as Role)}
    >
      {(roles.includes(member.role) ? roles : [...roles, member.role]).map((role) => (
        <option key={role} value={role}>{role}</option>
      ))}
    </select>
  );
}

type Pending = { kind: "remove" | "leave"; member: MemberDto } | null;

export function MembersTable({ me, org, members, onChange }: MembersProps) {
  const { route } = useLocation();
  const [pending, setPending] = useState<Pending>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const owners = members.filter((member) => member.role === "owner").length;
  const zone = browserTimeZone();

  const changeRole = useAction(async (member: MemberDto, role: Role) => {
    setNotice(null);
    const changed = await changeMemberRole(org.id, member.id, role);
    onChange(members.map((row) => (row.id === changed.id ? changed : row)));
    setNotice(`${changed.name} is now ${changed.role === "admin" || changed.role === "owner" ? "an" : "a"} ${changed.role}.`);
    if (changed.user_id === me.user.id) await loadSession();
  });
  const remove = useAction(async () => {
    if (!pending) return;
    await removeMember(org.id, pending.member.id);
    if (pending.kind === "leave") {
      await loadSession();
      route(paths.home);
      return;
    }
    onChange(members.filter((row) => row.id !== pending.member.id));
    setNotice(`${pending.member.name} was removed from the organisation.`);
    setPending(null);
  });

  return (
    <>
      {notice && <Alert tone="success">{notice}</Alert>}
      <FormError error={changeRole.error} />
      <DataTable
        caption="Members"
        rows={members}
        rowKey={(member) => member.id}
        columns={[
          {
            label: "Name",
            cell: (member) => (
              <span class="member-name">
                {member.name}
                {member.user_id === me.user.id && <span class="badge badge-muted">you</span>}
              </span>
            ),
          },
          { label: "Email", cell: (member) => member.email },
          {
            label: "Role",
            cell: (member) => (
              <RoleCell member={member} org={org} blocked={memberChangeBlock(org.role, member.role, owners)} busy={changeRole.busy} onChoose={(role) => void changeRole.run(member, role)} />
            ),
          },
          { label: "Joined", cell: (member) => <Day iso={member.created_at} timeZone={zone} /> },
          {
            label: "Actions",
            actions: true,
            cell: (member) => {
              const self = member.user_id === me.user.id;
              const lastOwner = member.role === "owner" && owners === 1;
              if (self) {
                return (
                  <Button small variant="ghost" disabled={lastOwner} title={lastOwner ? "The only owner cannot leave: make another member an owner first." : undefined} onClick={() => setPending({ kind: "leave", member })}>
                    Leave
                  </Button>
                );
              }
              const blocked = memberChangeBlock(org.role, member.role, owners);
              return blocked === null && (
                <Button small variant="ghost" aria-label={`Remove ${member.name}`} onClick={() => setPending({ kind: "remove", member })}>
                  Remove
                </Button>
              );
            },
          },
        ]}
      />
      {pending && (
        <ConfirmDialog
          open
          title={pending.kind === "leave" ? `Leave ${org.name}?` : `Remove ${pending.member.name}?`}
          confirmLabel={pending.kind === "leave" ? "Leave organisation" : "Remove member"}
          danger
          busy={remove.busy}
          onConfirm={() => void remove.run()}
          onClose={() => {
            remove.reset();
            setPending(null);
          }}
        >
          <FormError error={remove.error} />
          <p>
            {pending.kind === "leave"
              ? "You lose access to the organisation's projects at once; your personal access tokens for it stop working. An admin can invite you again."
              : `${pending.member.email} loses access to the organisation's projects at once, and their tokens for it stop working.`}
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
