// The gateway's 42 operations: who may call each, what it takes (the routes' own TypeBox
// schemas) and every answer it can give. Ten are beyond the spec's route tables.
import type { TSchema } from "elysia";
import { DeliveriesQuery } from "../../server/gateway/routes/deliveries.ts";
import { PageQuery } from "../../server/http/paging.ts";
import { QrQuery, RegisterRequest } from "../../server/gateway/routes/project-instances.ts";
import { MessagesQuery, SendRequest, SendsQuery } from "../../server/gateway/routes/project-messages.ts";
import { CreateProjectRequest, MintKeyRequest, SetWebhookRequest } from "../../server/gateway/routes/root-projects.ts";
import { idempotencyKeyLengthMax, mediaBytesMax } from "../../server/gateway/send-service.ts";
import { ref, type Json, type Schema } from "./json-schema.ts";

export type Auth = "none" | "project" | "root";

export interface Answer {
  description: string;
  /** The JSON body; `content` instead for other media types. */
  schema?: Schema;
  content?: Record<string, Json>;
  headers?: Record<string, Json>;
}

export interface OperationSpec {
  method: "get" | "post" | "put";
  path: string;
  operationId: string;
  summary: string;
  description: string;
  auth: Auth;
  /** Not in the spec's route tables (the spec says 42 endpoints exist but names 32). */
  beyondSpec?: true;
  query?: TSchema;
  body?: { schema: TSchema; required: boolean };
  headers?: Json[];
  answers: Record<string, Answer>;
}

const error = (description: string): Answer => ({ description, schema: ref("ErrorBody") });
const ok = (description: string, name: string): Answer => ({ description, schema: ref(name) });

const notFound = (what: string) => error(`No such ${what} (not_found); another project's is not found too.`);
const ownerUnreachable = error("The replica holding the number did not answer a forwarded request (unavailable).");
const replayAnswers = (scope: string): Record<string, Answer> => ({
  "200": ok("Requeued with a fresh schedule: the delivery as it is now (pending).", "Delivery"),
  "404": notFound(`delivery${scope}`),
  "409": error("The delivery is not dead (not_dead): only a dead letter can be replayed."),
  "410": error("Its payload expired (payload_expired; payloads are kept 30 days): the row remains for the record."),
});
const mediaLimits = Object.entries(mediaBytesMax).map(([type, bytes]) => `${type} ${bytes / 1024 / 1024} MiB`).join(", ");

export const operations: OperationSpec[] = [
  { method: "get", path: "/", operationId: "getService", summary: "What this service is", description: "Names the service and says which routes need no key.", auth: "none", answers: { "200": ok("The service.", "ServiceInfo") } },
  { method: "get", path: "/v1/live", operationId: "getLive", summary: "Liveness", description: "The process is up: restart it when this fails.", auth: "none", answers: { "200": ok("Up.", "Live") } },
  {
    method: "get", path: "/v1/ready", operationId: "getReady", summary: "Readiness",
    description: "The gateway can serve (its store answers): take it out of rotation when this fails, do not restart it.", auth: "none",
    answers: { "200": ok("Ready, with the store's kind.", "Ready"), "503": error("The store does not answer (unavailable).") },
  },
  { method: "get", path: "/v1/about", operationId: "getAbout", summary: "Build and attribution notice", description: "The build (name, version, commit) and the open-source packages it ships with their licences.", auth: "none", answers: { "200": ok("The build.", "About") } },
  {
    method: "get", path: "/v1/openapi.json", operationId: "getOpenApi", summary: "This contract", auth: "none", beyondSpec: true,
    description: "Beyond the spec: the gateway's OpenAPI 3.1 document (this one), served as committed.",
    answers: { "200": { description: "The OpenAPI document.", schema: { type: "object" } } },
  },

  {
    method: "post", path: "/v1/send", operationId: "send", summary: "Queue a message", auth: "project",
    description:
      "Queues one message (exactly one of text and media; `to` in E.164) to be sent through the project's pool; answered 202 once it is durably queued. " +
      `Media bytes at most: ${mediaLimits}; a document needs a fileName. The same Idempotency-Key again answers the message it queued the first time.`,
    headers: [{ name: "Idempotency-Key", in: "header", required: false, description: "Makes a retry safe: the same key answers the first message; another body under it is a 422.", schema: { type: "string", minLength: 1, maxLength: idempotencyKeyLengthMax } }],
    body: { schema: SendRequest, required: true },
    answers: {
      "202": {
        description: "Queued (or, for a repeated Idempotency-Key, the message it queued before).",
        schema: ref("Message"),
        headers: { "idempotent-replayed": { description: "true when the answer is the message an earlier request with this Idempotency-Key queued.", schema: { type: "string", const: "true" } } },
      },
      "400": error("The body or the Idempotency-Key is invalid (validation): not E.164, neither or both of text and media, empty text, not base64, not a MIME type, a document without a file name."),
      "413": error("The media is larger than its type allows (payload_too_large)."),
      "422": error("The Idempotency-Key was used for a different message (idempotency_key_reused)."),
    },
  },
  { method: "get", path: "/v1/messages", operationId: "listMessages", summary: "The project's send queue", description: "The project's messages, newest first, optionally in one state.", auth: "project", query: MessagesQuery, answers: { "200": ok("A page of messages.", "MessageList") } },
  { method: "get", path: "/v1/messages/{id}", operationId: "getMessage", summary: "One message's state", description: "Did this message arrive: its state, receipts and failure.", auth: "project", answers: { "200": ok("The message.", "Message"), "404": notFound("message") } },
  {
    method: "post", path: "/v1/messages/{id}/cancel", operationId: "cancelMessage", summary: "Cancel a queued message", auth: "project", beyondSpec: true,
    description: "Beyond the spec: cancels a message that is still queued (not yet being sent).",
    answers: { "200": ok("The cancelled message.", "Message"), "404": notFound("message"), "409": error("The message is no longer queued (not_cancellable).") },
  },
  { method: "get", path: "/v1/pool", operationId: "getPool", summary: "Which numbers can send now", description: "Every number in service with whether it can send now and, if not, why (pending, disconnected, rate-limited, warming up, suspended) and until when.", auth: "project", answers: { "200": ok("The pool.", "Pool") } },
  {
    method: "post", path: "/v1/instances", operationId: "registerInstance", summary: "Register a number", auth: "project",
    description: "Registers a phone number (E.164) to the project, pending until it is connected and its QR code scanned.",
    body: { schema: RegisterRequest, required: true },
    answers: { "201": ok("The registered number.", "Instance"), "400": error("The body is invalid or the phone is not E.164 (validation)."), "409": error("The number is already registered and in service, in this project or another (conflict).") },
  },
  { method: "get", path: "/v1/instances", operationId: "listInstances", summary: "The project's numbers", description: "Beyond the spec: the project's numbers, newest first, retired ones included.", auth: "project", beyondSpec: true, query: PageQuery, answers: { "200": ok("A page of numbers.", "InstanceList") } },
  {
    method: "get", path: "/v1/instances/{id}/qr", operationId: "getInstanceQr", summary: "The number's QR state", auth: "project", query: QrQuery,
    description: "paired, pending, or the current pairing code; with format=png or format=svg the code drawn as a QR image.",
    answers: {
      "200": {
        description: "The QR state (format=json, the default), or the code as an image.",
        content: {
          "application/json": { schema: ref("QrState") },
          "image/png": { schema: { type: "string", contentMediaType: "image/png" } },
          "image/svg+xml": { schema: { type: "string", contentMediaType: "image/svg+xml" } },
        },
      },
      "404": notFound("instance"),
      "409": error("An image was asked for but there is no code to draw (no_code): the number is paired, or pending (POST connect first)."),
      "503": ownerUnreachable,
    },
  },
  {
    method: "post", path: "/v1/instances/{id}/connect", operationId: "connectInstance", summary: "Pair a number", auth: "project",
    description: "Opens the number's session and waits briefly for its first pairing code, so the answer usually carries it.",
    answers: {
      "200": ok("The number and its QR state.", "Connected"),
      "404": notFound("instance"),
      "409": error("The number is already connected (already_connected) or retired (retired)."),
      "503": error("Another replica holds the number and could not be reached (owner_unavailable, unavailable), or the messaging network did not answer (network_unavailable)."),
    },
  },
  { method: "get", path: "/v1/instances/{id}/number", operationId: "getInstance", summary: "One number", description: "The registry view of one number.", auth: "project", answers: { "200": ok("The number.", "Instance"), "404": notFound("instance") } },
  {
    method: "post", path: "/v1/instances/{id}/retire", operationId: "retireInstance", summary: "Take a number out of service", auth: "project",
    description: "Logs the number out and takes it out of service; its history is kept. Retiring a retired number answers it as it is.",
    answers: { "200": ok("The retired number.", "Instance"), "404": notFound("instance"), "503": ownerUnreachable },
  },
  {
    method: "post", path: "/v1/instances/{id}/logout", operationId: "logoutInstance", summary: "Unlink a number", auth: "project", beyondSpec: true,
    description: "Beyond the spec: unlinks the number from the network (it is pending again; a new scan pairs it).",
    answers: { "200": ok("The number, pending.", "Instance"), "404": notFound("instance"), "409": error("The number is retired (retired)."), "503": ownerUnreachable },
  },
  { method: "get", path: "/v1/usage", operationId: "getUsage", summary: "Usage counters", description: "Messages sent, rejected and pending, messages received, and dead letters.", auth: "project", answers: { "200": ok("The counters.", "Usage") } },
  { method: "get", path: "/v1/sends", operationId: "listSends", summary: "The project's outbound attempts", description: "Each attempt to hand a message to the network, newest first, optionally of one message.", auth: "project", query: SendsQuery, answers: { "200": ok("A page of attempts.", "SendList") } },
  { method: "get", path: "/v1/deliveries", operationId: "listDeliveries", summary: "The project's inbound queue and dead letters", description: "The project's webhook deliveries, newest first, optionally in one state (e.g. dead).", auth: "project", query: DeliveriesQuery, answers: { "200": ok("A page of deliveries.", "DeliveryList") } },
  { method: "post", path: "/v1/deliveries/{id}/replay", operationId: "replayDelivery", summary: "Replay a dead letter", description: "Queues one of the project's dead letters again.", auth: "project", answers: replayAnswers(" of this project") },
  { method: "get", path: "/v1/audit", operationId: "listAudit", summary: "The project's audit trail", description: "What was done to the project, newest first, operators' actions included.", auth: "project", query: PageQuery, answers: { "200": ok("A page of entries.", "AuditList") } },

  {
    method: "post", path: "/v1/projects", operationId: "createProject", summary: "Create a project", auth: "root",
    description: "Creates a project; its webhookSecret is in this answer and never again.",
    body: { schema: CreateProjectRequest, required: true },
    answers: { "201": ok("The project and its webhook secret.", "ProjectCreated"), "400": error("The body is invalid or webhookUrl is not an http(s) URL (validation).") },
  },
  { method: "get", path: "/v1/projects", operationId: "listProjects", summary: "Every project", description: "Beyond the spec: the projects, newest first.", auth: "root", beyondSpec: true, query: PageQuery, answers: { "200": ok("A page of projects.", "ProjectList") } },
  { method: "get", path: "/v1/projects/{id}", operationId: "getProject", summary: "One project", description: "Beyond the spec: one project.", auth: "root", beyondSpec: true, answers: { "200": ok("The project.", "Project"), "404": notFound("project") } },
  {
    method: "post", path: "/v1/projects/{id}/keys", operationId: "mintKey", summary: "Mint a project key", auth: "root",
    description: "Mints a key for the project (named `default` unless named); the key is in this answer and never again. The body may be left out.",
    body: { schema: MintKeyRequest, required: false },
    answers: { "201": ok("The key and its secret.", "KeyMinted"), "404": notFound("project") },
  },
  { method: "get", path: "/v1/projects/{id}/keys", operationId: "listKeys", summary: "The project's keys", description: "Beyond the spec: the project's keys, revoked ones included, without their secrets.", auth: "root", beyondSpec: true, answers: { "200": ok("The keys.", "KeyList"), "404": notFound("project") } },
  {
    method: "post", path: "/v1/projects/{id}/keys/{keyId}/revoke", operationId: "revokeKey", summary: "Revoke a project key", auth: "root", beyondSpec: true,
    description: "Beyond the spec: revokes one key; it is refused from now on.",
    answers: { "200": ok("The revoked key.", "Key"), "404": notFound("project or key") },
  },
  {
    method: "post", path: "/v1/projects/{id}/webhook/rotate", operationId: "rotateWebhookSecret", summary: "Rotate the webhook secret", auth: "root",
    description: "A new webhookSecret at once (the old one signs nothing more), and what must switch to it.",
    answers: { "200": ok("The project, the new secret and what must reconnect.", "WebhookRotated"), "404": notFound("project") },
  },
  {
    method: "put", path: "/v1/projects/{id}/webhook", operationId: "setWebhookUrl", summary: "Point the webhook", auth: "root", beyondSpec: true,
    description: "Beyond the spec: sets (or, with null, clears) the project's webhook URL.",
    body: { schema: SetWebhookRequest, required: true },
    answers: { "200": ok("The project.", "Project"), "400": error("The body is invalid or the URL is not http(s) (validation)."), "404": notFound("project") },
  },
  { method: "post", path: "/v1/projects/{id}/disable", operationId: "disableProject", summary: "Suspend a project", description: "Suspends the project: its keys are refused and its messages wait.", auth: "root", answers: { "200": ok("The project.", "Project"), "404": notFound("project") } },
  { method: "post", path: "/v1/projects/{id}/enable", operationId: "enableProject", summary: "Enable a project", description: "Beyond the spec: lifts a suspension.", auth: "root", beyondSpec: true, answers: { "200": ok("The project.", "Project"), "404": notFound("project") } },

  { method: "get", path: "/v1/admin/instances", operationId: "adminListInstances", summary: "The whole deployment's numbers", description: "Every number of every project, with the replica holding it.", auth: "root", query: PageQuery, answers: { "200": ok("A page of numbers.", "AdminInstanceList") } },
  {
    method: "get", path: "/v1/admin/alerts", operationId: "adminAlerts", summary: "The six alert rules", auth: "root",
    description: "Every rule, firing or not, evaluated now; 503 while a critical rule fires (the body is the same report).",
    answers: { "200": ok("No critical rule fires (status ok or warning).", "AlertsReport"), "503": ok("A critical rule fires (status critical).", "AlertsReport") },
  },
  {
    method: "get", path: "/v1/admin/metrics", operationId: "adminMetrics", summary: "Prometheus metrics", auth: "root",
    description: "The Prometheus exposition (behind the root key: it names projects and their volumes and error rates).",
    answers: { "200": { description: "Prometheus text exposition.", content: { "text/plain": { schema: { type: "string" } } } } },
  },
  { method: "get", path: "/v1/admin/shards", operationId: "adminShards", summary: "Which replica holds which number", description: "The live replicas with the numbers each holds, and numbers wanting a session that none holds.", auth: "root", answers: { "200": ok("The shards.", "Shards") } },
  { method: "get", path: "/v1/admin/delivery-health", operationId: "adminDeliveryHealth", summary: "Which numbers still deliver", description: "Per number in service: sends and receipts over the last 24 hours and whether it still delivers.", auth: "root", answers: { "200": ok("The numbers' health.", "DeliveryHealth") } },
  { method: "get", path: "/v1/admin/numbers", operationId: "adminNumbers", summary: "Every number, every project", description: "The number registry.", auth: "root", answers: { "200": ok("The registry.", "NumberRegistry") } },
  { method: "get", path: "/v1/admin/audit", operationId: "adminAudit", summary: "The cross-project audit trail", description: "Every project's trail, newest first.", auth: "root", query: PageQuery, answers: { "200": ok("A page of entries.", "AuditList") } },
  { method: "get", path: "/v1/admin/deliveries", operationId: "adminListDeliveries", summary: "Deliveries across projects", description: "Every project's webhook deliveries, newest first, optionally in one state (e.g. dead).", auth: "root", query: DeliveriesQuery, answers: { "200": ok("A page of deliveries.", "DeliveryList") } },
  { method: "post", path: "/v1/admin/deliveries/{id}/replay", operationId: "adminReplayDelivery", summary: "Replay a dead letter", description: "Queues any project's dead letter again.", auth: "root", answers: replayAnswers("") },
  { method: "post", path: "/v1/admin/sweep", operationId: "adminSweep", summary: "Run one supervisor pass now", description: "Checks the store, renews and takes leases, sends what is due, runs due webhook retries, drops expired payloads and evaluates the alert rules.", auth: "root", answers: { "200": ok("What the pass did.", "SweepResult") } },
];
