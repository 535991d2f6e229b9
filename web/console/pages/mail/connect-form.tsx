// Connecting the tab to the mail API: the person pastes a full-access key (mk_live_…); the API
// itself says whether it takes it (its 401 for an unknown key, its 403 for a sending-only one).
import { checkKey } from "../../api/mail-api.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { connectMail, disconnectMail } from "../../state/mail-key.ts";
import { Button } from "../../ui/button.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { KeyIcon, LogOutIcon } from "../../ui/icons.tsx";
import { SettingsSection } from "../settings/settings-section.tsx";

export function MailConnectForm() {
  const form = useFormAction(async (fields) => {
    const key = fieldText(fields, "mailkey").trim();
    if (!key) throw new Error("paste a mail API key first");
    await checkKey(key);
    connectMail(key);
  });
  return (
    <SettingsSection
      id="mail-connect"
      title="Connect to the mail API"
      description="The mail API has its own keys: paste a full-access key of your tenant (mk_live_…). The key stays in this tab only and goes to the mail API alone."
    >
      <form class="form settings-form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <div class="inline-form">
          <TextField label="Mail API key" name="mailkey" type="password" autoComplete="off" spellcheck={false} required placeholder="mk_live_…" />
          <Button type="submit" variant="primary" busy={form.busy}>
            <KeyIcon /> Connect
          </Button>
        </div>
      </form>
    </SettingsSection>
  );
}

export function MailConnectedBar({ apiKey }: { apiKey: string }) {
  const shown = `${apiKey.slice(0, 8)}…${apiKey.slice(-4)}`;
  return (
    <div class="card gateway-connected" role="status">
      <KeyIcon />
      <p>
        Connected with the key <code class="inline-key">{shown}</code>: this tenant's domains, emails, suppressions and webhooks.
      </p>
      <Button small variant="ghost" onClick={disconnectMail}>
        <LogOutIcon /> Disconnect
      </Button>
    </div>
  );
}
