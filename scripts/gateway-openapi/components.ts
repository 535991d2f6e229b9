// The gateway's answers as JSON Schema components: what server/gateway/dto.ts, views.ts and the
// routes build, field for field (camelCase, RFC 3339 times, nulls rather than absent fields).
import { alertRules } from "../../server/gateway/alerts/rules.ts";
import { mediaTypes } from "../../server/gateway/send-service.ts";
import { deliveryStates } from "../../server/gateway/store/deliveries.ts";
import { deliveryEvents } from "./webhook-schemas.ts";
import { arrayOf, boolean, constant, dateTime, integer, nullable, object, oneOfStrings, page, ref, string, type Schema } from "./json-schema.ts";

const instanceStates = ["pending", "paired", "retired"];
const connectionStates = ["closed", "connecting", "open"];
const messageStates = ["queued", "sending", "sent", "delivered", "read", "failed", "cancelled"];
const sendOutcomes = ["started", "accepted", "duplicate", "refused", "error"];
const poolStatuses = ["ready", "pending", "disconnected", "rate_limited", "warming_up", "retired", "suspended"];

const instanceProperties: Record<string, Schema> = {
  id: string(),
  projectId: string(),
  phone: string("E.164, e.g. +4915112345678."),
  label: string("The label given at registration, else the phone number."),
  state: oneOfStrings(instanceStates, "pending until a scan pairs it; retired once taken out of service (its history is kept)."),
  connection: oneOfStrings(connectionStates, "What the number's session last reported; always closed once retired."),
  lastError: nullable(string()),
  pairedAt: nullable(dateTime()),
  connectedAt: nullable(dateTime()),
  disconnectedAt: nullable(dateTime()),
  retiredAt: nullable(dateTime()),
  createdAt: dateTime(),
  updatedAt: dateTime(),
};

const alert = object({
  rule: oneOfStrings(alertRules.map((rule) => rule.name)),
  severity: oneOfStrings(["critical", "warning"]),
  evaluated: boolean("False when the rule could not be evaluated (the store did not answer)."),
  firing: boolean(),
  since: nullable(dateTime("When it started firing.")),
  summary: string(),
  detail: nullable(string()),
  action: string("What to do when it fires."),
});

export const componentSchemas: Record<string, Schema> = {
  ErrorBody: object({ error: object({ code: string("Stable machine-readable code, e.g. unauthorized, validation, not_found, conflict."), message: string("Human-readable detail.") }) }, "Every refusal and failure."),
  ServiceInfo: object({ service: constant("messaging-gateway"), description: string() }),
  Live: object({ status: constant("live") }),
  Ready: object({ status: constant("ready"), store: oneOfStrings(["sqlite", "postgres"]) }),
  About: object({
    name: string(),
    version: string(),
    commit: nullable(string("The git commit the process runs (BUILD_COMMIT overrides); null without a clone.")),
    dependencies: arrayOf(object({ name: string(), version: string(), license: string() })),
    notice: string("The open-source attribution notice."),
  }),
  Project: object({
    id: string(),
    name: string(),
    webhookUrl: nullable(string()),
    state: oneOfStrings(["active", "suspended"]),
    suspendedAt: nullable(dateTime()),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  }),
  ProjectCreated: object({ project: ref("Project"), webhookSecret: string("whsec_ followed by base64: shown here once, never again.") }),
  ProjectList: page("projects", ref("Project")),
  WebhookRotated: object({
    project: ref("Project"),
    webhookSecret: string("The new secret (shown once); deliveries are signed with it from now on."),
    mustReconnect: arrayOf(object({ kind: constant("webhook"), url: string(), action: string() })),
  }),
  Key: object({
    id: string(),
    projectId: string(),
    name: string(),
    last4: string("The key's last four characters, to recognise it."),
    state: oneOfStrings(["active", "revoked"]),
    createdAt: dateTime(),
    revokedAt: nullable(dateTime()),
  }),
  KeyMinted: object({ key: ref("Key"), secret: string("The key itself (send it as the apikey header): shown here once, never again.") }),
  KeyList: object({ keys: arrayOf(ref("Key")) }),
  AuditEntry: object({
    id: string(),
    projectId: nullable(string()),
    actor: string("root, key:<key id> or system."),
    action: string(),
    target: nullable(string()),
    detail: { type: ["object", "null"] },
    at: dateTime(),
  }),
  AuditList: page("entries", ref("AuditEntry")),
  Instance: object(instanceProperties),
  AdminInstance: object({
    ...instanceProperties,
    owner: nullable(string("The replica holding the number's session while its lease runs.")),
    leaseExpiresAt: nullable(dateTime()),
  }),
  InstanceList: page("instances", ref("Instance")),
  AdminInstanceList: page("instances", ref("AdminInstance")),
  QrState: {
    oneOf: [
      object({ status: constant("paired") }),
      object({ status: constant("pending") }, "No code yet (POST connect first, or the session has not answered)."),
      object({ status: constant("code"), code: string("The pairing code to draw as a QR code and scan with the phone."), issuedAt: dateTime() }),
    ],
  },
  Connected: object({ instance: ref("Instance"), qr: ref("QrState") }),
  Message: object({
    id: string(),
    to: string(),
    type: oneOfStrings(["text", ...mediaTypes]),
    content: {
      oneOf: [
        object({ type: constant("text"), text: string() }),
        object({ type: oneOfStrings(mediaTypes), mimeType: string(), fileName: nullable(string()), caption: nullable(string()), bytes: integer("The media's size; its bytes are not echoed back.") }),
      ],
    },
    state: oneOfStrings(messageStates),
    failure: nullable(string()),
    instanceId: nullable(string("The number it was (last) sent through.")),
    attempts: integer(),
    idempotencyKey: nullable(string()),
    createdAt: dateTime(),
    sentAt: nullable(dateTime()),
    deliveredAt: nullable(dateTime()),
    readAt: nullable(dateTime()),
    nextAttemptAt: nullable(dateTime("Set while queued.")),
  }),
  MessageList: page("messages", ref("Message")),
  Send: object({
    id: string(),
    messageId: string(),
    instanceId: string(),
    replica: string(),
    outcome: oneOfStrings(sendOutcomes, "An attempt still started after its message moved on was cut short (the replica died mid-send)."),
    error: nullable(string()),
    startedAt: dateTime(),
    finishedAt: nullable(dateTime()),
  }),
  SendList: page("sends", ref("Send")),
  Delivery: object({
    id: string("Also the webhook-id header and the body's id."),
    projectId: string(),
    instanceId: nullable(string()),
    event: oneOfStrings(deliveryEvents),
    state: oneOfStrings(deliveryStates),
    attempts: integer(),
    lastError: nullable(string()),
    lastStatus: nullable(integer("The receiver's last HTTP status.")),
    nextAttemptAt: nullable(dateTime("Set while pending or retrying.")),
    payloadExpiresAt: dateTime("Payloads are kept 30 days; replay answers 410 after."),
    payloadExpired: boolean(),
    createdAt: dateTime(),
    deliveredAt: nullable(dateTime()),
    deadAt: nullable(dateTime()),
  }),
  DeliveryList: page("deliveries", ref("Delivery")),
  Pool: object({
    ready: integer("How many numbers can send now."),
    numbers: arrayOf(
      object({
        instanceId: string(),
        phone: string(),
        label: string(),
        status: oneOfStrings(poolStatuses),
        reason: nullable(string("Why it cannot send now; null when ready.")),
        until: nullable(dateTime("When a rate limit or the day's warm-up cap lifts.")),
      }),
    ),
  }),
  Usage: object({
    sent: integer("Messages sent, delivered or read."),
    rejected: integer("Messages that failed."),
    received: integer("Inbound messages (message.received deliveries)."),
    pending: integer("Messages queued or being sent."),
    dead: integer("Dead-lettered deliveries."),
  }),
  Alert: alert,
  AlertsReport: object({ status: oneOfStrings(["ok", "warning", "critical"]), alerts: arrayOf(ref("Alert")) }),
  Shards: object({
    sharding: boolean(),
    replicas: arrayOf(
      object({
        id: string(),
        url: nullable(string()),
        sharding: boolean(),
        self: boolean("The replica that answered."),
        startedAt: dateTime(),
        heartbeatAt: dateTime(),
        instances: arrayOf(object({ instanceId: string(), phone: string(), leaseExpiresAt: nullable(dateTime()) })),
      }),
    ),
    unowned: arrayOf(object({ instanceId: string(), phone: string() })),
  }),
  DeliveryHealth: object({
    numbers: arrayOf(
      object({
        instanceId: string(),
        phone: string(),
        projectId: string(),
        status: oneOfStrings(["delivering", "no_receipts", "not_delivering"]),
        connection: oneOfStrings(connectionStates),
        sentLast24h: integer(),
        deliveredLast24h: integer(),
        failedLast24h: integer(),
        lastSentAt: nullable(dateTime()),
        lastDeliveredAt: nullable(dateTime()),
      }),
    ),
  }),
  NumberRegistry: object({
    numbers: arrayOf(
      object({
        instanceId: string(),
        phone: string(),
        label: string(),
        projectId: string(),
        projectName: nullable(string()),
        state: oneOfStrings(instanceStates),
        pairedAt: nullable(dateTime()),
        retiredAt: nullable(dateTime()),
        createdAt: dateTime(),
      }),
    ),
  }),
  SweepResult: object({
    replica: string(),
    storeReachable: boolean(),
    leases: nullable(object({ held: integer(), opened: integer(), released: integer(), liveReplicas: integer() })),
    messagesAttempted: integer(),
    deliveriesAttempted: integer(),
    payloadsExpired: integer(),
    alerts: arrayOf(ref("Alert")),
  }),
};
