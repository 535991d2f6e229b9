// The messaging gateway key this tab is connected with, and its kind, kept in this tab only
// (tab-stored.ts).
import type { GatewayKeyKind } from "../api/gateway-api.ts";
import { tabStored } from "./tab-stored.ts";

export interface GatewayConnection {
  key: string;
  kind: GatewayKeyKind;
}

function readConnection(text: string): GatewayConnection | null {
  const value = JSON.parse(text) as Partial<GatewayConnection> | null;
  return value && typeof value.key === "string" && (value.kind === "project" || value.kind === "root") ? { key: value.key, kind: value.kind } : null;
}

const stored = tabStored<GatewayConnection>("svc-analytics.gateway-key", readConnection, (connection) => JSON.stringify(connection));

export const gatewayConnection = stored.current;
export const connectGateway = (connection: GatewayConnection) => stored.keep(connection);
export const disconnectGateway = () => stored.forget();
