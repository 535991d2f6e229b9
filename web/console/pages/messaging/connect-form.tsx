// Connecting the tab to the messaging gateway: the person pastes a project key (gw_live_…) or
// the operator's root key (gw_root_…); the gateway itself says which it is (or refuses it).
import { identifyKey } from "../../api/gateway-api.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { connectGateway, disconnectGateway, type GatewayConnection } from "../../state/gateway-key.ts";
import { Button } from "../../ui/button.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { KeyIcon, LogOutIcon } from "../../ui/icons.tsx";
import { SettingsSection } from "../settings/settings-section.tsx";

export function ConnectForm() {
  const form = useFormAction(async (fields) => {
    const key = fieldText(fields, "apikey").trim();
    if (!key) throw new Error("paste a gateway key first");
    connectGateway({ key, kind: await identifyKey(key) });
  });
  return (
    <SettingsSection
      id="gateway-connect"
      title="Connect to the gateway"
      description="The gateway has its own keys: a project key (gw_live_…) for a project's numbers, messages and deliveries, or the operator's root key (gw_root_…) for operations. The key stays in this tab only and goes to the gateway alone."
    >
      <form class="form settings-form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <div class="inline-form">
          <TextField label="Gateway key" name="apikey" type="password" autoComplete="off" spellcheck={false} required placeholder="gw_live_…" />
          <Button type="submit" variant="primary" busy={form.busy}>
            <KeyIcon /> Connect
          </Button>
        </div>
      </form>
    </SettingsSection>
  );
}

export function ConnectedBar({ connection }: { connection: GatewayConnection }) {
  const shown = `${connection.key.slice(0, 8)}…${connection.key.slice(-4)}`;
  return (
    <div class="card gateway-connected" role="status">
      <KeyIcon />
      <p>
        Connected with {connection.kind === "project" ? "a project key" : "the root key"} <code class="inline-key">{shown}</code>
        {connection.kind === "project" ? ": this project's numbers, messages and deliveries." : ": the gateway's operations, across every project."}
      </p>
      <Button small variant="ghost" onClick={disconnectGateway}>
        <LogOutIcon /> Disconnect
      </Button>
    </div>
  );
}
