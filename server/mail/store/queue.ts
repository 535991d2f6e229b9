// The delivery queue is the recipients table: a recipient is due when it waits (scheduled,
// queued or deferred) and its next attempt has come. A worker fires a scheduled email whole,
// then claims one recipient domain of one email at a time with a lease, just before delivering
// it (one statement: of two workers racing, PostgreSQL re-checks the lease on the row and SQLite
// serialises writes, so only one wins), and settles each recipient with its outcome; a worker
// killed mid-delivery loses its lease and the recipients come back when it expires. Each tenant
// has its own share of every pass, so one tenant's backlog delays no other.
import type { SQL } from "bun";
import { storedRecipient, type RecipientStatus, type StoredRecipient } from "./emails.ts";

/** What an attempt (or a report) settles a recipient with; `nextAttemptAt` only for `deferred`. */
export type RecipientOutcome = Pick<StoredRecipient, "emailId" | "address" | "status" | "nextAttemptAt" | "code" | "enhancedCode" | "replyText" | "mxHost" | "bounceClass" | "action">;

const due = (alias: string, now: number) =>
  `${alias}.status IN ('scheduled', 'queued', 'deferred') AND ${alias}.next_attempt_at <= ${now} AND (${alias}.lease_until IS NULL OR ${alias}.lease_until < ${now})`;

export class QueueStore {
  constructor(private readonly sql: SQL) {}

  /** Tenants with due recipients (whose email exists), longest waiting first, at most `limit`. */
  async tenantsDue(now: number, limit: number): Promise<string[]> {
    const rows = await this.sql.unsafe(
      `SELECT r.tenant_id FROM mail_recipients r JOIN mail_emails e ON e.id = r.email_id WHERE ${due("r", Math.trunc(now))}
       GROUP BY r.tenant_id ORDER BY MIN(r.next_attempt_at), r.tenant_id LIMIT $1`,
      [limit],
    );
    return (rows as { tenant_id: string }[]).map((row) => row.tenant_id);
  }

  /** The tenant's emails with due recipients, longest waiting first, at most `limit`. */
  async emailsDue(tenantId: string, now: number, limit: number): Promise<string[]> {
    const rows = await this.sql.unsafe(
      `SELECT r.email_id FROM mail_recipients r JOIN mail_emails e ON e.id = r.email_id WHERE r.tenant_id = $1 AND ${due("r", Math.trunc(now))}
       GROUP BY r.email_id ORDER BY MIN(r.next_attempt_at), r.email_id LIMIT $2`,
      [tenantId, limit],
    );
    return (rows as { email_id: string }[]).map((row) => row.email_id);
  }

  /**
   * A scheduled email's time has come: every one of its recipients still scheduled (none is left
   * behind for a later pass, which would fire it twice) is queued. Answers how many.
   */
  async fire(emailId: string, now: number): Promise<number> {
    const at = Math.trunc(now);
    const rows = await this.sql.unsafe(
      `UPDATE mail_recipients SET status = 'queued', updated_at = $1 WHERE email_id = $2 AND ${due("mail_recipients", at)} AND status = 'scheduled' RETURNING address`,
      [at, emailId],
    );
    return rows.length;
  }

  /** Leases the email's due recipients of one domain, just before they are delivered. */
  async claim(emailId: string, domain: string, owner: string, now: number, leaseMs: number): Promise<StoredRecipient[]> {
    const at = Math.trunc(now);
    const rows = await this.sql.unsafe(
      `UPDATE mail_recipients SET lease_owner = $1, lease_until = $2
       WHERE email_id = $3 AND domain = $4 AND ${due("mail_recipients", at)} AND status IN ('queued', 'deferred') RETURNING *`,
      [owner, at + leaseMs, emailId, domain],
    );
    return (rows as Record<string, unknown>[]).map(storedRecipient);
  }

  /** The recipient domains of the email with due recipients. */
  async domainsDue(emailId: string, now: number): Promise<string[]> {
    const rows = await this.sql.unsafe(`SELECT DISTINCT domain FROM mail_recipients WHERE email_id = $1 AND ${due("mail_recipients", Math.trunc(now))} ORDER BY domain`, [emailId]);
    return (rows as { domain: string }[]).map((row) => row.domain);
  }

  /** Moves the email from scheduled to queued; true for the one caller that did it. */
  async markEmailFired(emailId: string, now: number): Promise<boolean> {
    const rows = await this.sql`UPDATE mail_emails SET status = 'queued', updated_at = ${now} WHERE id = ${emailId} AND status = 'scheduled' RETURNING id`;
    return rows.length > 0;
  }

  /**
   * Records a claimed recipient's outcome and releases it; false when the lease was lost, or a
   * report (a DSN) settled the recipient meanwhile: the report, which came later, stands.
   */
  async settle(outcome: RecipientOutcome, owner: string, now: number): Promise<boolean> {
    const rows = await this.sql`
      UPDATE mail_recipients SET
        status = ${outcome.status}, attempts = attempts + 1, next_attempt_at = ${outcome.nextAttemptAt},
        code = ${outcome.code}, enhanced_code = ${outcome.enhancedCode}, reply_text = ${outcome.replyText},
        mx_host = ${outcome.mxHost}, bounce_class = ${outcome.bounceClass}, action = ${outcome.action},
        lease_owner = NULL, lease_until = NULL, updated_at = ${now}
      WHERE email_id = ${outcome.emailId} AND address = ${outcome.address} AND lease_owner = ${owner} AND status IN ('queued', 'deferred')
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
