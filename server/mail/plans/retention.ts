// Log retention: each tenant's emails (with their recipients, attempts and events) and its
// events without an email are deleted once older than its plan keeps logs, and idempotency
// keys once past their 24 hours, for every plan. A pass deletes at most `batch` rows of each
// kind for each plan, children before their email, and keeps no state outside the rows: a pass
// killed midway leaves rows the next one finds again.
//
// Events go with their webhook deliveries and those deliveries' attempts (PostgreSQL enforces
// the references). Another table with rows to age out adds a RetentionSweep to the list given to
// sweepRetention: mail.ts passes `mailRetentionSweeps`.
import type { SQL } from "bun";
import { count } from "../../sql-store/values.ts";
import { dayMs, logRetentionMs, planNames, plans, type PlanName } from "./plans.ts";

/** Emails (or other rows) of each kind deleted per plan in one pass. */
export const retentionBatchRows = 500;
export const idempotencyRetentionMs = dayMs;

export interface RetentionSweep {
  /** What it deletes, for the log. */
  name: string;
  /** Deletes at most `batch` rows (per plan, for a sweep by plan) past retention at `now`; answers how many rows went, children included. */
  sweep(sql: SQL, now: number, batch: number): Promise<number>;
}

/** Each plan with the time before which its tenants' logs are past retention. */
export const planCutoffs = (now: number): { plan: PlanName; cutoff: number }[] => planNames.map((plan) => ({ plan, cutoff: now - logRetentionMs(plans[plan]) }));

const deleted = (result: unknown) => count((result as { count: number }).count);

/** Deletes the events `eventIds` (at most a batch) with their webhook deliveries and attempts. */
async function deleteEvents(sql: SQL, eventIds: string[]): Promise<number> {
  if (eventIds.length === 0) return 0;
  let rows = deleted(await sql`DELETE FROM mail_webhook_attempts WHERE delivery_id IN (SELECT id FROM mail_webhook_deliveries WHERE event_id IN ${sql(eventIds)})`);
  rows += deleted(await sql`DELETE FROM mail_webhook_deliveries WHERE event_id IN ${sql(eventIds)}`);
  return rows + deleted(await sql`DELETE FROM mail_events WHERE id IN ${sql(eventIds)}`);
}

/**
 * An email goes once it was created, last changed and (if scheduled) due before the cutoff, and
 * none of its recipients changed since or still waits to be sent (a queue held up for longer
 * than the retention loses nothing): a scheduled or retried email outlives a short retention
 * until it is done.
 */
export const emailsSweep: RetentionSweep = {
  name: "emails",
  async sweep(sql, now, batch) {
    let rows = 0;
    for (const { plan, cutoff } of planCutoffs(now)) {
      const due = await sql`
        SELECT id FROM mail_emails
        WHERE tenant_id IN (SELECT id FROM mail_tenants WHERE plan = ${plan}) AND created_at < ${cutoff} AND updated_at < ${cutoff}
          AND (scheduled_at IS NULL OR scheduled_at < ${cutoff})
          AND NOT EXISTS (
            SELECT 1 FROM mail_recipients r WHERE r.email_id = mail_emails.id
              AND (r.updated_at >= ${cutoff} OR r.next_attempt_at >= ${cutoff} OR r.status IN ('scheduled', 'queued', 'deferred') OR r.lease_until >= ${now}))
        ORDER BY created_at LIMIT ${batch}`;
      const ids = (due as { id: string }[]).map((row) => row.id);
      if (ids.length === 0) continue;
      // By subquery: 500 emails may have tens of thousands of events, past a statement's bound values.
      rows += deleted(await sql`DELETE FROM mail_webhook_attempts WHERE delivery_id IN (SELECT d.id FROM mail_webhook_deliveries d JOIN mail_events e ON e.id = d.event_id WHERE e.email_id IN ${sql(ids)})`);
      rows += deleted(await sql`DELETE FROM mail_webhook_deliveries WHERE event_id IN (SELECT id FROM mail_events WHERE email_id IN ${sql(ids)})`);
      rows += deleted(await sql`DELETE FROM mail_events WHERE email_id IN ${sql(ids)}`);
      rows += deleted(await sql`DELETE FROM mail_attempts WHERE email_id IN ${sql(ids)}`);
      rows += deleted(await sql`DELETE FROM mail_recipients WHERE email_id IN ${sql(ids)}`);
      rows += deleted(await sql`DELETE FROM mail_emails WHERE id IN ${sql(ids)}`);
    }
    return rows;
  },
};

/** Events of no email (a domain verified or failed) go when older than the plan's retention. */
export const domainEventsSweep: RetentionSweep = {
  name: "domain events",
  async sweep(sql, now, batch) {
    let rows = 0;
    for (const { plan, cutoff } of planCutoffs(now)) {
      const events = (await sql`
        SELECT id FROM mail_events
        WHERE email_id IS NULL AND tenant_id IN (SELECT id FROM mail_tenants WHERE plan = ${plan}) AND created_at < ${cutoff}
        LIMIT ${batch}`) as { id: string }[];
      rows += await deleteEvents(sql, events.map((event) => event.id));
    }
    return rows;
  },
};

/** Received mail goes when older than its tenant's plan keeps logs. */
export const inboundSweep: RetentionSweep = {
  name: "inbound mail",
  async sweep(sql, now, batch) {
    let rows = 0;
    for (const { plan, cutoff } of planCutoffs(now)) {
      rows += deleted(
        await sql`
          DELETE FROM mail_inbound WHERE id IN (
            SELECT id FROM mail_inbound WHERE tenant_id IN (SELECT id FROM mail_tenants WHERE plan = ${plan}) AND created_at < ${cutoff} LIMIT ${batch})`,
      );
    }
    return rows;
  },
};

/**
 * Recipients are written before their email (store/emails.ts): a crash between the two leaves
 * recipients of no email, never acknowledged and never read; they go after a day.
 */
export const orphanRecipientsSweep: RetentionSweep = {
  name: "recipients of unwritten emails",
  sweep: async (sql, now, batch) =>
    deleted(
      await sql`
        DELETE FROM mail_recipients WHERE (email_id, address) IN (
          SELECT r.email_id, r.address FROM mail_recipients r
          WHERE r.updated_at < ${now - dayMs} AND NOT EXISTS (SELECT 1 FROM mail_emails e WHERE e.id = r.email_id) LIMIT ${batch})`,
    ),
};

/** An Idempotency-Key replays its answer for 24 hours, then its row goes. */
export const idempotencySweep: RetentionSweep = {
  name: "idempotency keys",
  sweep: async (sql, now, batch) =>
    deleted(
      await sql`
        DELETE FROM mail_idempotency WHERE (tenant_id, idempotency_key) IN (
          SELECT tenant_id, idempotency_key FROM mail_idempotency WHERE created_at < ${now - idempotencyRetentionMs} LIMIT ${batch})`,
    ),
};

export const mailRetentionSweeps: readonly RetentionSweep[] = [emailsSweep, domainEventsSweep, idempotencySweep, inboundSweep, orphanRecipientsSweep];

/** One pass of every sweep, each deletion logged; answers the rows deleted. */
export async function sweepRetention(sql: SQL, now: number, log: (line: string) => void, sweeps: readonly RetentionSweep[] = mailRetentionSweeps, batch = retentionBatchRows): Promise<number> {
  let rows = 0;
  for (const sweep of sweeps) {
    const swept = await sweep.sweep(sql, now, batch);
    if (swept > 0) log(`mail: retention deleted ${swept} rows of ${sweep.name}`);
    rows += swept;
  }
  return rows;
}
