// What the gateway posts: each project's webhook deliveries (Standard Webhooks signatures, the
// body server/gateway/inbound-events.ts builds) and the operator's alert posts ({"text": …}).
import type { DeliveryEvent } from "../../server/gateway/inbound-events.ts";
import { deliveryPayloadRetentionMs } from "../../server/gateway/inbound-events.ts";
import { webhookSecretPrefix } from "../../server/http/standard-webhooks.ts";
import { deliveryRetryDelaysMs } from "../../server/gateway/deliveries/schedule.ts";
import { constant, dateTime, integer, nullable, object, oneOfStrings, ref, string, type Json, type Schema } from "./json-schema.ts";

const receipt = object({ messageId: string("The id POST /v1/send answered."), to: string(), at: dateTime() });
const disconnect = object({ phone: string(), reason: oneOfStrings(["connection_lost", "logged_out", "replaced"]), message: string() });

/** Each event's `data` (typed by the event names, so a new event cannot go undescribed). */
const eventData: Record<DeliveryEvent, Schema> = {
  "message.received": object({
    networkId: string("The network's id of the message (the same message delivered twice carries the same id)."),
    from: string("The sender, E.164."),
    to: string("The number that received it."),
    sentAt: dateTime(),
    content: {
      oneOf: [
        object({ type: constant("text"), text: string() }),
        object({
          type: oneOfStrings(["image", "document", "audio", "video", "sticker"]),
          mimeType: string(),
          fileName: nullable(string()),
          caption: nullable(string()),
          bytes: nullable(integer()),
          dataBase64: nullable(string("The media's bytes; null when larger than 5 MiB or not downloadable.")),
        }),
        object({ type: constant("other"), description: string() }),
      ],
    },
  }),
  "message.delivered": receipt,
  "message.read": receipt,
  "message.failed": object({ messageId: string(), to: string(), reason: string() }),
  "instance.paired": object({ phone: string() }),
  "instance.disconnected": disconnect,
  "instance.logged_out": disconnect,
};

export const deliveryEvents = Object.keys(eventData) as DeliveryEvent[];

const eventName = (event: string) => `WebhookEvent_${event.replace(/\./g, "_")}`;

export const webhookSchemas: Record<string, Schema> = {
  ...Object.fromEntries(
    deliveryEvents.map((event) => [
      eventName(event),
      object({
        id: string("The delivery's id, also in webhook-id: the same event redelivered keeps it (deduplicate on it)."),
        event: constant(event),
        projectId: string(),
        instanceId: nullable(string()),
        createdAt: dateTime(),
        data: eventData[event],
      }),
    ]),
  ),
  WebhookDelivery: { type: "object", oneOf: deliveryEvents.map((event) => ref(eventName(event))), discriminator: { propertyName: "event" } },
  AlertPost: object({ text: string("The transition as chat text: the rule, its severity, the gateway, the detail and the action.") }, "Accepted as it is by Slack-style incoming webhooks."),
};

const duration = (ms: number) => (ms < 60_000 ? `${ms / 1_000} s` : ms < 3_600_000 ? `${ms / 60_000} min` : `${ms / 3_600_000} h`);

const header = (name: string, description: string, schema: Schema): Json => ({ name, in: "header", required: true, description, schema });

export const webhooks = (): Record<string, Json> => ({
  delivery: {
    post: {
      operationId: "webhookDelivery",
      summary: "An event posted to the project's webhook URL",
      description:
        "Each event (an inbound message, a receipt or failure of a sent message, a number's pairing and connection changes) is posted to the project's " +
        "webhookUrl, signed the Standard Webhooks way: HMAC-SHA256 keyed with the base64-decoded part of the project's webhookSecret " +
        `(${webhookSecretPrefix}…) over "{webhook-id}.{webhook-timestamp}.{body}", sent as "v1,{base64}" (the standardwebhooks and svix libraries verify it). ` +
        "Events of one conversation arrive in order: the next waits while one retries. Any 2xx delivers; anything else (another status, no answer within " +
        `the time-out, a refused connection) is retried after ${deliveryRetryDelaysMs.map(duration).join(", ")}, then the delivery is dead (GET /v1/deliveries?state=dead; replay within ` +
        `${deliveryPayloadRetentionMs / 86_400_000} days).`,
      parameters: [
        header("webhook-id", "The delivery's id (the body's id); the same on every attempt.", { type: "string" }),
        header("webhook-timestamp", "When this attempt was signed, in Unix seconds.", { type: "string", pattern: "^[0-9]+$" }),
        header("webhook-signature", "v1, then the base64 HMAC-SHA256 signature.", { type: "string", pattern: "^v1,[A-Za-z0-9+/]+=*$" }),
        header("webhook-attempt", "1 on the first attempt, counting up on each retry.", { type: "string", pattern: "^[1-9][0-9]*$" }),
      ],
      requestBody: { required: true, content: { "application/json": { schema: ref("WebhookDelivery") } } },
      responses: {
        "2XX": { description: "Delivered." },
        default: { description: "Not delivered: retried on the schedule, then dead-lettered." },
      },
    },
  },
  alert: {
    post: {
      operationId: "alertPost",
      summary: "An alert transition posted to ALERT_WEBHOOK_URL",
      description:
        "Posted once when an alert rule starts firing and once when it clears, nothing in between (the operator's setting ALERT_WEBHOOK_URL; " +
        "chat-tool incoming webhooks take the body as it is). A post that fails is tried again on later supervisor passes.",
      requestBody: { required: true, content: { "application/json": { schema: ref("AlertPost") } } },
      responses: { "2XX": { description: "Taken." }, default: { description: "Not taken: tried again on a later supervisor pass." } },
    },
  },
});

