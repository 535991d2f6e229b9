// The webhook worker's pass: fan out new events into deliveries, then lease what is due and
// post it (in parallel), logging every attempt. A 2xx delivers; any other status, a time-out
// or a refused connection schedules the next retry (schedule.ts), and after the last the
// delivery is `failed`. Passes never overlap within a process; across processes the leases keep
// two from posting the same delivery, and a killed process's leases run out and its work comes back.
import { PassLoop } from "../../pass-loop.ts";
import type { EventStore, MailEvent } from "../store/events.ts";
import { webhookBody } from "../store/events.ts";
import type { MailWebhookDelivery, WebhookDeliveryStore } from "../store/webhook-deliveries.ts";
import type { MailWebhook, WebhookStore } from "../store/webhooks.ts";
import { fanOut, fanOutEventsMax } from "./fan-out.ts";
import { postWebhook, type WebhookFetch } from "./post-webhook.ts";
import { nextWebhookAttempt } from "./schedule.ts";

/** How long a receiver has to answer one attempt. */
export const webhookTimeoutMs = 10_000;
/** Deliveries leased and posted per pass. */
export const webhookDeliveriesPerPassMax = 50;
/** A lease outlives the attempt's time-out by this much, so no other process posts the same delivery meanwhile. */
export const webhookLeaseMarginMs = 30_000;

export const newAttemptId = () => `wha_${Bun.randomUUIDv7().replaceAll("-", "")}`;

export interface WebhookWorkerDeps {
  events: EventStore;
  webhooks: WebhookStore;
  deliveries: WebhookDeliveryStore;
  now: () => number;
  fetch: WebhookFetch;
  timeoutMs: number;
  log(line: string): void;
}

export class WebhookWorker {
  private readonly owner = `webhooks-${crypto.randomUUID()}`;
  private readonly loop: PassLoop;
  private readonly stopping = new AbortController();
  private current: Promise<number> | null = null;

  constructor(private readonly deps: WebhookWorkerDeps) {
    this.loop = new PassLoop(() => this.pass(), (error) => deps.log(`mail: webhook pass failed: ${error.message}`));
  }

  /** Passes until nothing more is due now; resolves with the HTTP attempts made. */
  run(): Promise<number> {
    if (this.stopping.signal.aborted) return Promise.resolve(0);
    const running = this.loop.run();
    this.current = running;
    return running;
  }

  /** Aborts the attempts in flight (unlogged: their leases run out and they are posted again) and waits for the pass to end. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.current;
  }

  private async pass(): Promise<{ done: number; more: boolean }> {
    const { deliveries, webhooks, now } = this.deps;
    // A kick that came in while stopping asks for one more pass: the store may be closed by now.
    if (this.stopping.signal.aborted) return { done: 0, more: false };
    const fannedOut = await fanOut(this.deps, now());
    const claimed = await deliveries.claimDue(this.owner, now(), this.deps.timeoutMs + webhookLeaseMarginMs, webhookDeliveriesPerPassMax);
    const events = new Map((await deliveries.eventsOf([...new Set(claimed.map((entry) => entry.eventId))])).map((event) => [event.id, event]));
    const endpoints = new Map((await webhooks.byIds([...new Set(claimed.map((entry) => entry.webhookId))])).map((endpoint) => [endpoint.id, endpoint]));
    await Promise.all(claimed.map((entry) => this.attempt(entry, endpoints.get(entry.webhookId)!, events.get(entry.eventId)!)));
    return { done: claimed.length, more: !this.stopping.signal.aborted && (claimed.length === webhookDeliveriesPerPassMax || fannedOut === fanOutEventsMax) };
  }

  private async attempt(delivery: MailWebhookDelivery, endpoint: MailWebhook, event: MailEvent): Promise<void> {
    const { deliveries, now } = this.deps;
    const startedAt = now();
    const started = performance.now();
    const outcome = await postWebhook(this.deps.fetch, { url: endpoint.url, secret: endpoint.secret, eventId: event.id, body: JSON.stringify(webhookBody(event)) }, this.deps.timeoutMs, this.stopping.signal);
    if (this.stopping.signal.aborted) return;
    await deliveries.recordAttempt({ id: newAttemptId(), deliveryId: delivery.id, startedAt, durationMs: Math.round(performance.now() - started), status: outcome.status, error: outcome.error, responseExcerpt: outcome.responseExcerpt });
    const settledAt = now();
    if (outcome.delivered) {
      await deliveries.settle(delivery.id, this.owner, { state: "delivered", status: outcome.status, error: null, nextAttemptAt: settledAt }, settledAt);
      return;
    }
    const next = nextWebhookAttempt(delivery.attempts + 1, settledAt);
    await deliveries.settle(delivery.id, this.owner, { state: next === null ? "failed" : "pending", status: outcome.status, error: outcome.error, nextAttemptAt: next ?? settledAt }, settledAt);
  }
}
