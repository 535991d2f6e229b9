// The delivery queue is the recipients table: a recipient is due when it waits (scheduled,
// queued or deferred) and its next attempt has come. A worker claims due recipients with a
// lease (one statement: of two workers racing, PostgreSQL re-checks the lease on the row and
// SQLite serialises writes, so only one wins), delivers, and settles each with its outcome; a
// worker killed mid-delivery loses its lease and the recipients come back when it expires.
// Each tenant has its own share of every pass, so one tenant's backlog delays no other.
import type { SQL } from "bun";
import { storedRecipient, type RecipientStatus, type StoredRecipient } from "./emails.ts";

export interface RecipientOutcome {
  emailId: string;
  address: string;
  status: RecipientStatus;
  /** The next attempt for `deferred`; null otherwise. */
  nextAttemptAt: number | null;
  code: number | null;
  enhancedCode: string | null;
  replyText: string | null;
  mxHost: string | null;
  bounceClass: string | null;
  action: string | null;
}

const due = (alias: string, now: number) =>
  `${alias}.status IN ('scheduled', 'queued', 'deferred') AND ${alias}.next_attempt_at <= ${now} AND (${alias}.lease_until IS NULL OR ${alias}.lease_until < ${now})`;

export class QueueStore {
  constructor(private readonly sql: SQL) {}

  /** Tenants with due recipients (whose email exists), at most `limit`. */
  async tenantsDue(now: number, limit: number): Promise<string[]> {
    const rows = await this.sql.unsafe(
      `SELECT DISTINCT r.tenant_id FROM mail_recipients r JOIN mail_emails e ON e.id = r.email_id WHERE ${due("r", Math.trunc(now))} LIMIT $1`,
      [limit],
    );
    return (rows as { tenant_id: string }[]).map((row) => row.tenant_id);
  }

  /** Leases up to `limit` of the tenant's due recipients, oldest due first, an email's together. */
  async claim(tenantId: string, owner: string, now: number, leaseMs: number, limit: number): Promise<StoredRecipient[]> {
    const at = Math.trunc(now);
    const rows = await this.sql.unsafe(
      `UPDATE mail_recipients SET lease_owner = $1, lease_until = $2
       WHERE (email_id, address) IN (
         SELECT r.email_id, r.address FROM mail_recipients r JOIN mail_emails e ON e.id = r.email_id
         WHERE r.tenant_id = $3 AND ${due("r", at)}
         ORDER BY r.next_attempt_at, r.email_id LIMIT $4
       ) AND ${due("mail_recipients", at)}
       RETURNING *`,
      [owner, at + leaseMs, tenantId, limit],
    );
    return (rows as Record<string, unknown>[]).map(storedRecipient);
  }

  /** A scheduled email's time has come: its claimed recipients are queued. */
  async fire(emailId: string, owner: string, now: number): Promise<void> {
    await this.sql`UPDATE mail_recipients SET status = 'queued', updated_at = ${now} WHERE email_id = ${emailId} AND status = 'scheduled' AND lease_owner = ${owner}`;
  }

  /** Moves the email from scheduled to queued; true for the one caller that did it. */
  async markEmailFired(emailId: string, now: number): Promise<boolean> {
    const rows = await this.sql`UPDATE mail_emails SET status = 'queued', updated_at = ${now} WHERE id = ${emailId} AND status = 'scheduled' RETURNING id`;
    return rows.length > 0;
  }

  /** Records a claimed recipient's outcome and releases it; false when the lease was lost. */
  async settle(outcome: RecipientOutcome, owner: string, now: number): Promise<boolean> {
    const rows = await this.sql`
      UPDATE mail_recipients SET
        status = ${outcome.status}, attempts = attempts + 1, next_attempt_at = ${outcome.nextAttemptAt},
        code = ${outcome.code}, enhanced_code = ${outcome.enhancedCode}, reply_text = ${outcome.replyText},
        mx_host = ${outcome.mxHost}, bounce_class = ${outcome.bounceClass}, action = ${outcome.action},
        lease_owner = NULL, lease_until = NULL, updated_at = ${now}
      WHERE email_id = ${outcome.emailId} AND address = ${outcome.address} AND lease_owner = ${owner}
      RETURNING address`;
    return rows.length > 0;
  }

  /** A recipient's state changed after the fact (a DSN, a complaint): only from `from`. */
  async markReported(emailId: string, address: string, from: RecipientStatus[], outcome: Omit<RecipientOutcome, "emailId" | "address" | "nextAttemptAt" | "mxHost">, now: number): Promise<boolean> {
    const rows = await this.sql`
      UPDATE mail_recipients SET
        status = ${outcome.status}, next_attempt_at = NULL, code = ${outcome.code}, enhanced_code = ${outcome.enhancedCode},
        reply_text = ${outcome.replyText}, bounce_class = ${outcome.bounceClass}, action = ${outcome.action}, updated_at = ${now}
      WHERE email_id = ${emailId} AND address = ${address} AND status IN ${this.sql(from)}
      RETURNING address`;
    return rows.length > 0;
  }
}
