// Calls to the messaging gateway, served by the same process at /gateway. The gateway has its
// own keys (header `apikey`), not the console's session: the key goes in that header to
// /gateway and nowhere else, never in a URL, and no cookie goes with it. A 401 here is the
// gateway refusing the key; it says nothing about the console session.
import { keyedService, keyedServiceError, withQuery } from "./keyed-service.ts";
import type {
  Alerts, DeliveryHealth, DeliveryState, GatewayDelivery, GatewayInstance, GatewayMessage, GatewaySend, MessageState, Pool, QrState, Shards, Usage,
} from "./gateway-types.ts";
import type { Page } from "./persons-api.ts";

export const gatewayBase = "/gateway";

export type GatewayKeyKind = "project" | "root";

const gatewayApi = keyedService(gatewayBase, (key) => ({ apikey: key }));
const gatewayFetch = gatewayApi.send;
const gatewayJson = gatewayApi.json;

const id = (value: string) => encodeURIComponent(value);

/**
 * Which kind of key this is: a project key reads its usage, the root key reads the alerts (which
 * answer 503 with their body while a critical one fires). Anything else is the gateway's 401.
 */
export async function identifyKey(key: string): Promise<GatewayKeyKind> {
  const usage = await gatewayFetch(key, "GET", "/v1/usage");
  if (usage.ok) return "project";
  if (usage.status !== 401) throw await keyedServiceError(usage);
  await readAlerts(key);
  return "root";
}

/** Listing pages as the console's paged lists read them. */
const page = <T>(items: T[], nextCursor: string | null): Page<T> => ({ results: items, next_cursor: nextCursor });

export const listInstances = async (key: string, cursor: string | null) => {
  const answer = await gatewayJson<{ instances: GatewayInstance[]; nextCursor: string | null }>(key, "GET", withQuery("/v1/instances", { cursor }));
  return page(answer.instances, answer.nextCursor);
};
export const registerInstance = (key: string, phone: string, label: string | null) =>
  gatewayJson<GatewayInstance>(key, "POST", "/v1/instances", { body: label ? { phone, label } : { phone } });
export const connectInstance = (key: string, instanceId: string) =>
  gatewayJson<{ instance: GatewayInstance; qr: QrState }>(key, "POST", `/v1/instances/${id(instanceId)}/connect`);
export const readQr = (key: string, instanceId: string) => gatewayJson<QrState>(key, "GET", `/v1/instances/${id(instanceId)}/qr`);
export const logoutInstance = (key: string, instanceId: string) => gatewayJson<GatewayInstance>(key, "POST", `/v1/instances/${id(instanceId)}/logout`);
export const retireInstance = (key: string, instanceId: string) => gatewayJson<GatewayInstance>(key, "POST", `/v1/instances/${id(instanceId)}/retire`);

/**
 * The pairing code drawn as PNG, as a data: URL: fetched with the key in its header (an <img>
 * cannot send one), and data: because the console's CSP allows images from itself and data:
 * only, not blob:.
 */
export async function qrImage(key: string, instanceId: string): Promise<string> {
  const response = await gatewayFetch(key, "GET", `/v1/instances/${id(instanceId)}/qr?format=png`);
  if (!response.ok) throw await keyedServiceError(response);
  const blob = await response.blob();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error ?? new Error("the QR code could not be read"));
    reader.readAsDataURL(blob);
  });
}

export const readUsage = (key: string) => gatewayJson<Usage>(key, "GET", "/v1/usage");
export const readPool = (key: string) => gatewayJson<Pool>(key, "GET", "/v1/pool");

/** Queues a text; `idempotencyKey` makes a retried submission the same message. */
export const sendText = (key: string, to: string, text: string, idempotencyKey: string) =>
  gatewayJson<GatewayMessage>(key, "POST", "/v1/send", { body: { to, text }, headers: { "Idempotency-Key": idempotencyKey } });
export const listMessages = async (key: string, state: MessageState | null, cursor: string | null) => {
  const answer = await gatewayJson<{ messages: GatewayMessage[]; nextCursor: string | null }>(key, "GET", withQuery("/v1/messages", { state, cursor }));
  return page(answer.messages, answer.nextCursor);
};
export const readMessage = (key: string, messageId: string) => gatewayJson<GatewayMessage>(key, "GET", `/v1/messages/${id(messageId)}`);
export const cancelMessage = (key: string, messageId: string) => gatewayJson<GatewayMessage>(key, "POST", `/v1/messages/${id(messageId)}/cancel`);
export const listSends = async (key: string, messageId: string) =>
  (await gatewayJson<{ sends: GatewaySend[]; nextCursor: string | null }>(key, "GET", withQuery("/v1/sends", { messageId, limit: "200" }))).sends;

/** A project's deliveries (its key) or every project's (the root key). */
export const listDeliveries = async (key: string, scope: GatewayKeyKind, state: DeliveryState | null, cursor: string | null) => {
  const path = scope === "root" ? "/v1/admin/deliveries" : "/v1/deliveries";
  const answer = await gatewayJson<{ deliveries: GatewayDelivery[]; nextCursor: string | null }>(key, "GET", withQuery(path, { state, cursor }));
  return page(answer.deliveries, answer.nextCursor);
};
export const replayDelivery = (key: string, scope: GatewayKeyKind, deliveryId: string) =>
  gatewayJson<GatewayDelivery>(key, "POST", `${scope === "root" ? "/v1/admin/deliveries" : "/v1/deliveries"}/${id(deliveryId)}/replay`);

/** The alert rules; 503 is the gateway saying a critical one fires, with the same body. */
export async function readAlerts(key: string): Promise<Alerts> {
  const response = await gatewayFetch(key, "GET", "/v1/admin/alerts", { headers: { Accept: "application/json" } });
  if (response.ok || response.status === 503) {
    const body = (await response.clone().json().catch(() => null)) as Alerts | null;
    if (body && Array.isArray(body.alerts)) return body;
  }
  throw await keyedServiceError(response);
}
export const readShards = (key: string) => gatewayJson<Shards>(key, "GET", "/v1/admin/shards");
export const readDeliveryHealth = async (key: string) => (await gatewayJson<{ numbers: DeliveryHealth[] }>(key, "GET", "/v1/admin/delivery-health")).numbers;
