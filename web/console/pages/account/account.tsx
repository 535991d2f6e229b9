// The person's account (/account): name and email with whether the address is confirmed, the
// organisations they belong to, and changing the password (every other session signs out).
import { useState } from "preact/hooks";
import { resendVerification } from "../../api/console-api.ts";
import { changePassword } from "../../api/settings-api.ts";
import type { MeResponse } from "../../api/types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { passwordHint, passwordLengthMax, passwordLengthMin } from "../auth/account-rules.ts";
import { browserTimeZone, Day } from "../settings/dates.tsx";
import { Fact, SettingsSection } from "../settings/settings-section.tsx";
import { useAction } from "../settings/use-action.ts";
import { AccountLayout } from "./account-layout.tsx";

function EmailState({ me }: { me: MeResponse }) {
  const [sent, setSent] = useState(false);
  const send = useAction(async () => {
    await resendVerification();
    setSent(true);
  });
  if (me.user.email_verified) return <span class="badge">Confirmed</span>;
  return (
    <span class="email-state">
      <span class="badge badge-warning">Not confirmed</span>
      {sent ? (
        <span class="settings-description">Sent: check your inbox.</span>
      ) : (
        <Button small variant="ghost" busy={send.busy} onClick={() => void send.run()}>Send the link again</Button>
      )}
      <FormError error={send.error} />
    </span>
  );
}

function Profile({ me }: { me: MeResponse }) {
  return (
    <SettingsSection id="profile" title="Profile" description="Your name and address as your organisations see them.">
      <dl class="facts">
        <Fact term="Name" wide>{me.user.name}</Fact>
        <Fact term="Email" wide>
          <span class="email-line">
            {me.user.email} <EmailState me={me} />
          </span>
        </Fact>
        <Fact term="Member since"><Day iso={me.user.created_at} timeZone={browserTimeZone()} /></Fact>
      </dl>
    </SettingsSection>
  );
}

function Organisations({ me }: { me: MeResponse }) {
  return (
    <SettingsSection id="organisations" title="Organisations" description="The organisations you belong to, and your role in each.">
      <DataTable
        caption="Your organisations"
        rows={me.orgs}
        rowKey={(org) => org.id}
        empty={<p class="settings-description">You belong to no organisation. An admin's invitation adds you to one.</p>}
        columns={[
          { label: "Name", cell: (org) => org.name },
          { label: "Your role", cell: (org) => org.role },
          { label: "Actions", actions: true, cell: (org) => <a href={paths.orgSettings(org.id)} aria-label={`${org.name} settings`}>Settings</a> },
        ]}
      />
    </SettingsSection>
  );
}

function ChangePassword() {
  const [changed, setChanged] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const form = useFormAction(async (fields) => {
    setChanged(false);
    const next = fieldText(fields, "new_password");
    if (next !== fieldText(fields, "confirm")) throw new Error("the two new passwords differ");
    await changePassword({ current_password: fieldText(fields, "current_password"), new_password: next });
    setChanged(true);
    setAttempt((count) => count + 1);
  });
  return (
    <SettingsSection id="password" title="Password" description="Changing it signs out every other session; this browser stays signed in.">
      <form key={attempt} class="form settings-form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        {changed && <Alert tone="success">Your password is changed. Every other session was signed out.</Alert>}
        <TextField label="Current password" name="current_password" type="password" autoComplete="current-password" required maxLength={passwordLengthMax} />
        <div class="field-row">
          <TextField label="New password" name="new_password" type="password" autoComplete="new-password" required minLength={passwordLengthMin} maxLength={passwordLengthMax} hint={passwordHint} />
          <TextField label="Repeat the new password" name="confirm" type="password" autoComplete="new-password" required />
        </div>
        <div>
          <Button type="submit" variant="primary" busy={form.busy}>Change password</Button>
        </div>
      </form>
    </SettingsSection>
  );
}

export default function AccountPage() {
  return (
    <AccountLayout current={paths.account} title="Account" lede="Your profile, organisations and password.">
      {(me) => (
        <>
          <Profile me={me} />
          <Organisations me={me} />
          <ChangePassword />
        </>
      )}
    </AccountLayout>
  );
}
