// The webhook routes' answers, snake_case as the rest of the mail API (dto.ts). The signing
// secret is never part of an endpoint's answer: only creation and rotation add it.
import { iso } from "./dto.ts";
import type { MailWebhookAttempt } from "./store/webhook-deliveries.ts";
import type { MailWebhook } from "./store/webhooks.ts";
import type { DeliveryWithAttempts } from "./webhooks/webhooks-service.ts";

export const webhookDto = (webhook: MailWebhook) => ({
  id: webhook.id,
  url: webhook.url,
  events: webhook.eventTypes,
  enabled: webhook.enabled,
  created_at: iso(webhook.createdAt),
  updated_at: iso(webhook.updatedAt),
});

export const webhookAttemptDto = (attempt: MailWebhookAttempt) => ({
  started_at: iso(attempt.startedAt),
  duration_ms: attempt.durationMs,
  status: attempt.status,
  error: attempt.error,
  response_excerpt: attempt.responseExcerpt,
});

export const webhookDeliveryDto = (delivery: DeliveryWithAttempts) => ({
  id: delivery.id,
  webhook_id: delivery.webhookId,
  event_id: delivery.eventId,
  event_type: delivery.eventType,
  state: delivery.state,
  next_attempt_at: delivery.state === "pending" ? iso(delivery.nextAttemptAt) : null,
  last_status: delivery.lastStatus,
  last_error: delivery.lastError,
  created_at: iso(delivery.createdAt),
  updated_at: iso(delivery.updatedAt),
  delivered_at: iso(delivery.deliveredAt),
  attempts: delivery.attemptLog.map(webhookAttemptDto),
});
