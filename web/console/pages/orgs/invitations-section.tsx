// Invitations: admins and owners invite an address with a role (the invitation is mailed with
// a link valid for 7 days) and revoke pending ones. The API has no resend: revoking and
// inviting again mails a new link.
import { useState } from "preact/hooks";
import { inviteMember, revokeInvitation } from "../../api/settings-api.ts";
import type { InvitationDto } from "../../api/settings-types.ts";
import type { OrgDto, Role } from "../../api/types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { MailIcon } from "../../ui/icons.tsx";
import { EmptyState } from "../../ui/states.tsx";
import { browserTimeZone, Day } from "../settings/dates.tsx";
import { useAction } from "../settings/use-action.ts";
import { grantableRoles, roleDescriptions } from "./roles.ts";

const emailLengthMax = 254;

interface InvitationsProps {
  org: OrgDto;
  invitations: InvitationDto[];
  onChange(invitations: InvitationDto[]): void;
}

export function InviteForm({ org, invitations, onChange }: InvitationsProps) {
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState<string | null>(null);
  const form = useFormAction(async (fields) => {
    setSent(null);
    const invitation = await inviteMember(org.id, { email: email.trim(), role: fieldText(fields, "role") as Role });
    onChange([...invitations, invitation]);
    setSent(invitation.email);
    setEmail("");
  });
  return (
    <form class="form invite-form" onSubmit={form.onSubmit}>
      <FormError error={form.error} />
      {sent && <Alert tone="success">An invitation was mailed to {sent}.</Alert>}
      <div class="inline-form">
        <TextField
          label="Email address"
          name="email"
          type="email"
          required
          maxLength={emailLengthMax}
          autoComplete="off"
          placeholder="name@example.com"
          value={email}
          onInput={(event) => setEmail(event.currentTarget.value)}
        />
        <SelectField label="Role" name="role">
          {grantableRoles(org.role).map((role) => (
            <option key={role} value={role} selected={role === "member"}>{role} · {roleDescriptions[role]}</option>
          ))}
        </SelectField>
        <Button type="submit" variant="primary" busy={form.busy}>Send invitation</Button>
      </div>
    </form>
  );
}

export function PendingInvitations({ org, invitations, onChange }: InvitationsProps) {
  const zone = browserTimeZone();
  const revoke = useAction(async (invitation: InvitationDto) => {
    await revokeInvitation(org.id, invitation.id);
    onChange(invitations.filter((row) => row.id !== invitation.id));
  });
  return (
    <>
      <FormError error={revoke.error} />
      <DataTable
        caption="Pending invitations"
        rows={invitations}
        rowKey={(invitation) => invitation.id}
        empty={
          <EmptyState icon={<MailIcon size={20} />} title="No pending invitations">
            Invite someone above: they get a link to join, valid for 7 days.
          </EmptyState>
        }
        columns={[
          { label: "Email", cell: (invitation) => invitation.email },
          { label: "Role", cell: (invitation) => invitation.role },
          { label: "Sent", cell: (invitation) => <Day iso={invitation.created_at} timeZone={zone} /> },
          { label: "Expires", cell: (invitation) => <Day iso={invitation.expires_at} timeZone={zone} /> },
          {
            label: "Actions",
            actions: true,
            cell: (invitation) => (
              <Button small variant="ghost" busy={revoke.busy} aria-label={`Revoke the invitation to ${invitation.email}`} onClick={() => void revoke.run(invitation)}>
                Revoke
              </Button>
            ),
          },
        ]}
      />
      <p class="settings-description">To mail an invitation again, revoke it and invite the address again.</p>
    </>
  );
}
