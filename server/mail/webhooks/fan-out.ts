// Events become deliveries: each event not yet fanned out gets one delivery per endpoint of its
// tenant that is enabled, subscribes to its type and existed when it happened. The deliveries
// are written before the events are marked, and written with ON CONFLICT DO NOTHING, so a fan-out
// repeated after a crash (or run by two processes at once) makes no delivery twice.
import type { EventStore } from "../store/events.ts";
import type { NewWebhookDelivery, WebhookDeliveryStore } from "../store/webhook-deliveries.ts";
import type { WebhookStore } from "../store/webhooks.ts";

/** Events fanned out per batch. */
export const fanOutEventsMax = 500;
/** Deliveries written per statement (SQLite binds at most 32,766 values; a delivery takes ten). */
export const fanOutRowsPerStatementMax = 1_000;

export const newDeliveryId = () => `whd_${Bun.randomUUIDv7().replaceAll("-", "")}`;

/** One batch; resolves with how many events it fanned out (fanOutEventsMax: there may be more). */
export async function fanOut(stores: { events: EventStore; webhooks: WebhookStore; deliveries: WebhookDeliveryStore }, now: number): Promise<number> {
  const events = await stores.events.notFannedOut(fanOutEventsMax);
  if (events.length === 0) return 0;
  const endpoints = await stores.webhooks.enabledOf([...new Set(events.map((event) => event.tenantId))]);
  const deliveries: NewWebhookDelivery[] = events.flatMap((event) =>
    endpoints
      .filter((endpoint) => endpoint.tenantId === event.tenantId && endpoint.createdAt <= event.createdAt && endpoint.eventTypes.includes(event.type))
      .map((endpoint) => ({ id: newDeliveryId(), webhookId: endpoint.id, tenantId: event.tenantId, eventId: event.id, eventType: event.type })),
  );
  for (let start = 0; start < deliveries.length; start += fanOutRowsPerStatementMax) {
    await stores.deliveries.add(deliveries.slice(start, start + fanOutRowsPerStatementMax), now);
  }
  await stores.events.markFannedOut(events.map((event) => event.id));
  return events.length;
}
