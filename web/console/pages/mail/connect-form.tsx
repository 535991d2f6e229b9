// Connecting the tab to the mail API: the person pastes a full-access key (mk_live_…); the API
// itself says whether it takes it (its 401 for an unknown key, its 403 for a sending-only one).
import { checkKey } from "../../api/mail-api.ts";
import { connectMail, disconnectMail } from "../../state/mail-key.ts";
import { KeyConnectedBar, KeyConnectForm, KeyEnds } from "../keyed-service/connect-form.tsx";

export function MailConnectForm() {
  return (
    <KeyConnectForm
      id="mail-connect"
      title="Connect to the mail API"
      description="The mail API has its own keys: paste a full-access key of your tenant (mk_live_…). The key stays in this tab only and goes to the mail API alone."
      label="Mail API key"
      name="mailkey"
      placeholder="mk_live_…"
      emptyMessage="paste a mail API key first"
      connect={async (key) => {
        await checkKey(key);
        connectMail(key);
      }}
    />
  );
}

export function MailConnectedBar({ apiKey }: { apiKey: string }) {
  return (
    <KeyConnectedBar onDisconnect={disconnectMail}>
      Connected with the key <KeyEnds apiKey={apiKey} />: this tenant's domains, emails, suppressions and webhooks.
    </KeyConnectedBar>
  );
}
