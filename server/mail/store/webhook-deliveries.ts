// Webhook deliveries in the mail service's store: one row per event for each endpoint that
// subscribed to it, `pending` until a 2xx (`delivered`) or the last retry (`failed`), and every
// HTTP attempt of each. A pass leases what it posts; a lease that runs out (its process was
// killed) makes the delivery due again.
import type { SQL } from "bun";
import { count, time } from "../../sql-store/values.ts";
import { mailEvent, type MailEvent } from "./events.ts";

export const webhookDeliveryStates = ["pending", "delivered", "failed"] as const;
export type WebhookDeliveryState = (typeof webhookDeliveryStates)[number];

export interface MailWebhookDelivery {
  id: string;
  webhookId: string;
  tenantId: string;
  eventId: string;
  eventType: string;
  state: WebhookDeliveryState;
  /** Attempts since it was last queued: the retry schedule's position. */
  attempts: number;
  nextAttemptAt: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  deliveredAt: number | null;
}

export interface MailWebhookAttempt {
  id: string;
  deliveryId: string;
  startedAt: number;
  durationMs: number;
  /** The receiver's HTTP status; null when it never answered (time-out, refused connection). */
  status: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  tenant_id: string;
  event_id: string;
  event_type: string;
  state: WebhookDeliveryState;
  attempts: number | string;
  next_attempt_at: number | string;
  last_status: number | string | null;
  last_error: string | null;
  created_at: number | string;
  updated_at: number | string;
  delivered_at: number | string | null;
}

interface AttemptRow {
  id: string;
  delivery_id: string;
  started_at: number | string;
  duration_ms: number | string;
  status: number | string | null;
  error: string | null;
  response_excerpt: string | null;
}

const delivery = (row: DeliveryRow): MailWebhookDelivery => ({
  id: row.id,
  webhookId: row.webhook_id,
  tenantId: row.tenant_id,
  eventId: row.event_id,
  eventType: row.event_type,
  state: row.state,
  attempts: count(row.attempts),
  nextAttemptAt: time(row.next_attempt_at)!,
  lastStatus: row.last_status === null ? null : count(row.last_status),
  lastError: row.last_error,
  createdAt: time(row.created_at)!,
  updatedAt: time(row.updated_at)!,
  deliveredAt: time(row.delivered_at),
});

const attempt = (row: AttemptRow): MailWebhookAttempt => ({
  id: row.id,
  deliveryId: row.delivery_id,
  startedAt: time(row.started_at)!,
  durationMs: count(row.duration_ms),
  status: row.status === null ? null : count(row.status),
  error: row.error,
  responseExcerpt: row.response_excerpt,
});

export type NewWebhookDelivery = Pick<MailWebhookDelivery, "id" | "webhookId" | "tenantId" | "eventId" | "eventType">;

export class WebhookDeliveryStore {
  constructor(private readonly sql: SQL) {}

  /** Queues deliveries due now; one an endpoint has for the event already stays as it is (a repeated fan-out is harmless). */
  async add(deliveries: NewWebhookDelivery[], now: number): Promise<void> {
    if (deliveries.length === 0) return;
    const rows = deliveries.map((entry) => ({
      id: entry.id,
      webhook_id: entry.webhookId,
      tenant_id: entry.tenantId,
      event_id: entry.eventId,
      event_type: entry.eventType,
      state: "pending",
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    }));
    await this.sql`INSERT INTO mail_webhook_deliveries ${this.sql(rows)} ON CONFLICT (webhook_id, event_id) DO NOTHING`;
  }

  /** Leases what is due now, of enabled endpoints (a disabled one's wait; a deleted one's never go), for `leaseMs`. */
  async claimDue(owner: string, now: number, leaseMs: number, limit: number): Promise<MailWebhookDelivery[]> {
    const due = (await this.sql`
      SELECT d.id FROM mail_webhook_deliveries d JOIN mail_webhooks w ON w.id = d.webhook_id
      WHERE d.state = 'pending' AND d.next_attempt_at <= ${now} AND (d.lease_until IS NULL OR d.lease_until < ${now})
      AND w.enabled = 1 AND w.deleted_at IS NULL
      ORDER BY d.next_attempt_at, d.id LIMIT ${limit}`) as { id: string }[];
    if (due.length === 0) return [];
    // The condition again: another process may have leased some of them since the SELECT.
    const rows = await this.sql`
      UPDATE mail_webhook_deliveries SET lease_owner = ${owner}, lease_until = ${now + leaseMs}
      WHERE id IN ${this.sql(due.map(({ id }) => id))} AND state = 'pending' AND (lease_until IS NULL OR lease_until < ${now})
      RETURNING *`;
    return (rows as DeliveryRow[]).map(delivery);
  }

  /** The events these deliveries carry (their webhook bodies). */
  async eventsOf(eventIds: string[]): Promise<MailEvent[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.sql`SELECT * FROM mail_events WHERE id IN ${this.sql(eventIds)}`;
    return (rows as Parameters<typeof mailEvent>[0][]).map(mailEvent);
  }

  async recordAttempt(entry: MailWebhookAttempt): Promise<void> {
    await this.sql`
      INSERT INTO mail_webhook_attempts (id, delivery_id, started_at, duration_ms, status, error, response_excerpt)
      VALUES (${entry.id}, ${entry.deliveryId}, ${entry.startedAt}, ${entry.durationMs}, ${entry.status}, ${entry.error}, ${entry.responseExcerpt})`;
  }

  /** Ends an attempt under this owner's lease: `delivered`, `failed`, or `pending` again at `nextAttemptAt`. */
  async settle(id: string, owner: string, outcome: { state: WebhookDeliveryState; status: number | null; error: string | null; nextAttemptAt: number }, now: number): Promise<void> {
    await this.sql`
      UPDATE mail_webhook_deliveries SET state = ${outcome.state}, attempts = attempts + 1, last_status = ${outcome.status}, last_error = ${outcome.error},
        next_attempt_at = ${outcome.nextAttemptAt}, lease_owner = NULL, lease_until = NULL, updated_at = ${now},
        delivered_at = ${outcome.state === "delivered" ? now : null}
      WHERE id = ${id} AND lease_owner = ${owner}`;
  }

  async ofWebhook(webhookId: string, id: string): Promise<MailWebhookDelivery | null> {
    const [row] = await this.sql`SELECT * FROM mail_webhook_deliveries WHERE id = ${id} AND webhook_id = ${webhookId}`;
    return row ? delivery(row as DeliveryRow) : null;
  }

  /** An endpoint's deliveries, newest first (ids are time-ordered), optionally in one state. */
  async list(webhookId: string, state: WebhookDeliveryState | null, limit: number, after: string | null): Promise<MailWebhookDelivery[]> {
    const rows = await this.sql`
      SELECT * FROM mail_webhook_deliveries WHERE webhook_id = ${webhookId}
      AND (CAST(${state} AS TEXT) IS NULL OR state = ${state}) AND (CAST(${after} AS TEXT) IS NULL OR id < ${after})
      ORDER BY id DESC LIMIT ${limit}`;
    return (rows as DeliveryRow[]).map(delivery);
  }

  /** The attempts of these deliveries, oldest first. */
  async attemptsOf(deliveryIds: string[]): Promise<MailWebhookAttempt[]> {
    if (deliveryIds.length === 0) return [];
    const rows = await this.sql`SELECT * FROM mail_webhook_attempts WHERE delivery_id IN ${this.sql(deliveryIds)} ORDER BY started_at, id`;
    return (rows as AttemptRow[]).map(attempt);
  }

  /** Queues a delivered or failed delivery again, due now, with a fresh retry schedule; null when it is pending already. */
  async requeue(webhookId: string, id: string, now: number): Promise<MailWebhookDelivery | null> {
    const [row] = await this.sql`
      UPDATE mail_webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = ${now}, delivered_at = NULL, updated_at = ${now}
      WHERE id = ${id} AND webhook_id = ${webhookId} AND state IN ('delivered', 'failed') RETURNING *`;
    return row ? delivery(row as DeliveryRow) : null;
  }
}
