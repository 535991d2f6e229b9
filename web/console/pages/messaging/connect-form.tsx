// Connecting the tab to the messaging gateway: the person pastes a project key (gw_live_…) or
// the operator's root key (gw_root_…); the gateway itself says which it is (or refuses it).
import { identifyKey } from "../../api/gateway-api.ts";
import { connectGateway, disconnectGateway, type GatewayConnection } from "../../state/gateway-key.ts";
import { KeyConnectedBar, KeyConnectForm, KeyEnds } from "../keyed-service/connect-form.tsx";

export function ConnectForm() {
  return (
    <KeyConnectForm
      id="gateway-connect"
      title="Connect to the gateway"
      description="The gateway has its own keys: a project key (gw_live_…) for a project's numbers, messages and deliveries, or the operator's root key (gw_root_…) for operations. The key stays in this tab only and goes to the gateway alone."
      label="Gateway key"
      name="apikey"
      placeholder="gw_live_…"
      emptyMessage="paste a gateway key first"
      connect={async (key) => connectGateway({ key, kind: await identifyKey(key) })}
    />
  );
}

export function ConnectedBar({ connection }: { connection: GatewayConnection }) {
  return (
    <KeyConnectedBar onDisconnect={disconnectGateway}>
      Connected with {connection.kind === "project" ? "a project key" : "the root key"} <KeyEnds apiKey={connection.key} />
      {connection.kind === "project" ? ": this project's numbers, messages and deliveries." : ": the gateway's operations, across every project."}
    </KeyConnectedBar>
  );
}
