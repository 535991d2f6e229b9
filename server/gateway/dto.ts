// The gateway's answers, in the spec's camelCase (`webhookSecret`, `lastError`), times as
// RFC 3339 strings.
import type { AuditEntry } from "./store/audit.ts";
import type { StoredContent } from "./dispatcher.ts";
import type { QrState } from "./instances-service.ts";
import type { GatewayDelivery } from "./store/deliveries.ts";
import type { GatewayInstance } from "./store/instances.ts";
import type { GatewayMessage, GatewaySend } from "./store/messages.ts";
import type { GatewayKey, GatewayProject } from "./store/projects.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const projectDto = (project: GatewayProject) => ({
  id: project.id,
  name: project.name,
  webhookUrl: project.webhookUrl,
  state: project.suspendedAt === null ? "active" : "suspended",
  suspendedAt: iso(project.suspendedAt),
  createdAt: iso(project.createdAt),
  updatedAt: iso(project.updatedAt),
});

export const keyDto = (key: GatewayKey) => ({
  id: key.id,
  projectId: key.projectId,
  name: key.name,
  last4: key.last4,
  state: key.revokedAt === null ? "active" : "revoked",
  createdAt: iso(key.createdAt),
  revokedAt: iso(key.revokedAt),
});

export const auditDto = (entry: AuditEntry) => ({
  id: entry.id,
  projectId: entry.projectId,
  actor: entry.actor,
  action: entry.action,
  target: entry.target,
  detail: entry.detail,
  at: iso(entry.at),
});

export const instanceDto = (instance: GatewayInstance) => ({
  id: instance.id,
  projectId: instance.projectId,
  phone: instance.phone,
  label: instance.label,
  state: instance.state,
  connection: instance.state === "retired" ? "closed" : instance.connection,
  lastError: instance.lastError,
  pairedAt: iso(instance.pairedAt),
  connectedAt: iso(instance.connectedAt),
  disconnectedAt: iso(instance.disconnectedAt),
  retiredAt: iso(instance.retiredAt),
  createdAt: iso(instance.createdAt),
  updatedAt: iso(instance.updatedAt),
});

/** The operator's view adds which replica holds the number. */
export const adminInstanceDto = (instance: GatewayInstance, now: number) => ({
  ...instanceDto(instance),
  owner: instance.leaseExpiresAt !== null && instance.leaseExpiresAt >= now ? instance.owner : null,
  leaseExpiresAt: iso(instance.leaseExpiresAt),
});

export const messageDto = (message: GatewayMessage) => {
  const content = JSON.parse(message.content) as StoredContent;
  return {
    id: message.id,
    to: message.recipient,
    type: message.kind,
    // Media bytes are not echoed back; their size is.
    content: content.type === "text" ? { type: "text", text: content.text } : { type: content.type, mimeType: content.mimeType, fileName: content.fileName, caption: content.caption, bytes: message.contentBytes },
    state: message.state,
    failure: message.failure,
    instanceId: message.instanceId,
    attempts: message.attempts,
    idempotencyKey: message.idempotencyKey,
    createdAt: iso(message.createdAt),
    sentAt: iso(message.sentAt),
    deliveredAt: iso(message.deliveredAt),
    readAt: iso(message.readAt),
    nextAttemptAt: message.state === "queued" ? iso(message.nextAttemptAt) : null,
  };
};

export const sendDto = (send: GatewaySend) => ({
  id: send.id,
  messageId: send.messageId,
  instanceId: send.instanceId,
  replica: send.replica,
  // An attempt still `started` after its message moved on was cut short (the replica died mid-send).
  outcome: send.outcome,
  error: send.error,
  startedAt: iso(send.startedAt),
  finishedAt: iso(send.finishedAt),
});

export const deliveryDto = (delivery: GatewayDelivery) => ({
  id: delivery.id,
  projectId: delivery.projectId,
  instanceId: delivery.instanceId,
  event: delivery.event,
  state: delivery.state,
  attempts: delivery.attempts,
  lastError: delivery.lastError,
  lastStatus: delivery.lastStatus,
  nextAttemptAt: delivery.state === "pending" || delivery.state === "retrying" ? iso(delivery.nextAttemptAt) : null,
  payloadExpiresAt: iso(delivery.payloadExpiresAt),
  payloadExpired: delivery.payload === null,
  createdAt: iso(delivery.createdAt),
  deliveredAt: iso(delivery.deliveredAt),
  deadAt: iso(delivery.deadAt),
});

export const qrDto = (state: QrState) => (state.status === "code" ? { status: "code" as const, code: state.code, issuedAt: iso(state.issuedAt) } : state);
