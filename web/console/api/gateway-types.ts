// The messaging gateway's answers as the console reads them (server/gateway/dto.ts, views.ts,
// alerts/alerts.ts). Every text in them came from somewhere else (labels, message texts, the
// network's errors): the pages render them as text only.

export type InstanceState = "pending" | "paired" | "retired";

export interface GatewayInstance {
  id: string;
  phone: string;
  label: string | null;
  state: InstanceState;
  connection: string;
  lastError: string | null;
  pairedAt: string | null;
  connectedAt: string | null;
  disconnectedAt: string | null;
  retiredAt: string | null;
  createdAt: string;
}

export type QrState = { status: "paired" } | { status: "pending" } | { status: "code"; code: string; issuedAt: string };

export const messageStates = ["queued", "sending", "sent", "delivered", "read", "failed", "cancelled"] as const;
export type MessageState = (typeof messageStates)[number];

export interface GatewayMessage {
  id: string;
  to: string;
  type: string;
  content: { type: "text"; text: string } | { type: string; mimeType: string; fileName: string | null; caption: string | null; bytes: number };
  state: MessageState;
  failure: string | null;
  instanceId: string | null;
  attempts: number;
  idempotencyKey: string | null;
  createdAt: string;
  sentAt: string | null;
  deliveredAt: string | null;
  readAt: string | null;
  nextAttemptAt: string | null;
}

export interface GatewaySend {
  id: string;
  messageId: string;
  instanceId: string;
  replica: string;
  outcome: string;
  error: string | null;
  startedAt: string;
  finishedAt: string | null;
}

export const deliveryStates = ["pending", "retrying", "delivered", "dead"] as const;
export type DeliveryState = (typeof deliveryStates)[number];

export interface GatewayDelivery {
  id: string;
  projectId: string;
  instanceId: string | null;
  event: string;
  state: DeliveryState;
  attempts: number;
  lastError: string | null;
  lastStatus: number | null;
  nextAttemptAt: string | null;
  payloadExpired: boolean;
  createdAt: string;
  deliveredAt: string | null;
  deadAt: string | null;
}

export interface Usage {
  sent: number;
  rejected: number;
  received: number;
  pending: number;
  dead: number;
}

export interface PoolNumber {
  instanceId: string;
  phone: string;
  label: string | null;
  status: string;
  reason: string | null;
  until: string | null;
}

export interface Pool {
  ready: number;
  numbers: PoolNumber[];
}

export interface Alert {
  rule: string;
  severity: "critical" | "warning";
  evaluated: boolean;
  firing: boolean;
  since: string | null;
  summary: string;
  detail: string | null;
  action: string;
}

export interface Alerts {
  status: "ok" | "warning" | "critical";
  alerts: Alert[];
}

export interface Shards {
  sharding: boolean;
  replicas: { id: string; url: string | null; self: boolean; heartbeatAt: string; instances: { instanceId: string; phone: string; leaseExpiresAt: string | null }[] }[];
  unowned: { instanceId: string; phone: string }[];
}

export interface DeliveryHealth {
  instanceId: string;
  phone: string;
  projectId: string;
  status: "delivering" | "no_receipts" | "not_delivering";
  connection: string;
  sentLast24h: number;
  deliveredLast24h: number;
  failedLast24h: number;
  lastSentAt: string | null;
  lastDeliveredAt: string | null;
}
