// A tenant's webhook endpoints: add one (its signing secret shown once), list, read, change
// (URL, event types, enabled), delete, rotate the secret (the new one shown once, used at once
// for every delivery not yet posted), and each endpoint's deliveries with their attempts, any
// delivered or failed one replayable.
import { ApiError, conflict, notFound, validation } from "../../http/errors.ts";
import { newWebhookSecret } from "../../http/standard-webhooks.ts";
import { mailEventTypes, type MailEventType } from "../store/events.ts";
import { webhookDeliveryStates, type MailWebhookAttempt, type MailWebhookDelivery, type WebhookDeliveryState, type WebhookDeliveryStore } from "../store/webhook-deliveries.ts";
import type { MailWebhook, WebhookStore } from "../store/webhooks.ts";
import { checkWebhookUrl } from "./webhook-url.ts";

/** Endpoints a tenant may have at once (deleted ones do not count). */
export const webhooksPerTenantMax = 20;

export const newWebhookId = () => `whk_${Bun.randomUUIDv7().replaceAll("-", "")}`;

/** The subscribed types in the canonical order, each once; a 400 naming the allowed ones for anything else. */
export function checkEventTypes(types: string[]): MailEventType[] {
  const unknown = types.find((type) => !(mailEventTypes as readonly string[]).includes(type));
  if (unknown !== undefined) throw validation(`events: ${JSON.stringify(unknown.slice(0, 60))} is not an event type; the types are ${mailEventTypes.join(", ")}`);
  if (types.length === 0) throw validation(`events: name at least one of ${mailEventTypes.join(", ")}`);
  return mailEventTypes.filter((type) => types.includes(type));
}

export type DeliveryWithAttempts = MailWebhookDelivery & { attemptLog: MailWebhookAttempt[] };

export class WebhooksService {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly deliveries: WebhookDeliveryStore,
    private readonly now: () => number,
  ) {}

  async add(tenantId: string, input: { url: string; events: string[] }): Promise<MailWebhook> {
    const created = await this.webhooks.create({ id: newWebhookId(), tenantId, url: checkWebhookUrl(input.url), eventTypes: checkEventTypes(input.events), secret: newWebhookSecret(), now: this.now() }, webhooksPerTenantMax);
    if (!created) throw new ApiError(409, "limit_reached", `at most ${webhooksPerTenantMax} webhook endpoints per account: delete one first`);
    return created;
  }

  async get(tenantId: string, id: string): Promise<MailWebhook> {
    const webhook = await this.webhooks.ofTenant(tenantId, id);
    if (!webhook) throw notFound("webhook");
    return webhook;
  }

  list = (tenantId: string, limit: number, after: string | null) => this.webhooks.list(tenantId, limit, after);

  async update(tenantId: string, id: string, change: { url?: string; events?: string[]; enabled?: boolean }): Promise<MailWebhook> {
    const url = change.url === undefined ? undefined : checkWebhookUrl(change.url);
    const eventTypes = change.events === undefined ? undefined : checkEventTypes(change.events);
    const updated = await this.webhooks.update(tenantId, id, { url, eventTypes, enabled: change.enabled }, this.now());
    if (!updated) throw notFound("webhook");
    return updated;
  }

  async remove(tenantId: string, id: string): Promise<void> {
    if (!(await this.webhooks.remove(tenantId, id, this.now()))) throw notFound("webhook");
  }

  async rotateSecret(tenantId: string, id: string): Promise<MailWebhook> {
    const updated = await this.webhooks.update(tenantId, id, { secret: newWebhookSecret() }, this.now());
    if (!updated) throw notFound("webhook");
    return updated;
  }

  /** A page of the endpoint's deliveries, newest first, each with its attempts; `state` as the query gave it. */
  async deliveriesOf(tenantId: string, id: string, state: string | null, limit: number, after: string | null): Promise<DeliveryWithAttempts[]> {
    if (state !== null && !(webhookDeliveryStates as readonly string[]).includes(state)) throw validation(`state: must be one of ${webhookDeliveryStates.join(", ")}`);
    await this.get(tenantId, id);
    return this.withAttempts(await this.deliveries.list(id, state as WebhookDeliveryState | null, limit, after));
  }

  /** Queues a delivered or failed delivery again, due now (the receiver dedupes by webhook-id if it had it). */
  async replay(tenantId: string, id: string, deliveryId: string): Promise<DeliveryWithAttempts> {
    await this.get(tenantId, id);
    const requeued = await this.deliveries.requeue(id, deliveryId, this.now());
    if (requeued) return (await this.withAttempts([requeued]))[0]!;
    if (!(await this.deliveries.ofWebhook(id, deliveryId))) throw notFound("delivery");
    throw conflict("this delivery is pending already: it is posted when it is due");
  }

  private async withAttempts(deliveries: MailWebhookDelivery[]): Promise<DeliveryWithAttempts[]> {
    const attempts = await this.deliveries.attemptsOf(deliveries.map((entry) => entry.id));
    return deliveries.map((entry) => ({ ...entry, attemptLog: attempts.filter((attempt) => attempt.deliveryId === entry.id) }));
  }
}
