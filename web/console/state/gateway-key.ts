// The messaging gateway key this tab is connected with, and its kind. Kept in sessionStorage:
// it lasts while the tab does (a reload keeps it) and no other tab or later visit sees it.
import { signal } from "@preact/signals";
import type { GatewayKeyKind } from "../api/gateway-api.ts";

export interface GatewayConnection {
  key: string;
  kind: GatewayKeyKind;
}

const storageName = "svc-analytics.gateway-key";

function stored(): GatewayConnection | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(storageName) ?? "null") as Partial<GatewayConnection> | null;
    return value && typeof value.key === "string" && (value.kind === "project" || value.kind === "root") ? { key: value.key, kind: value.kind } : null;
  } catch {
    // Storage refused (privacy settings) or an unreadable value: not connected.
    return null;
  }
}

export const gatewayConnection = signal<GatewayConnection | null>(stored());

export function connectGateway(connection: GatewayConnection): void {
  try {
    sessionStorage.setItem(storageName, JSON.stringify(connection));
  } catch {
    // Without storage the connection lasts until the page reloads.
  }
  gatewayConnection.value = connection;
}

export function disconnectGateway(): void {
  try {
    sessionStorage.removeItem(storageName);
  } catch {
    // Nothing was stored.
  }
  gatewayConnection.value = null;
}
