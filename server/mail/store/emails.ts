// Accepted emails and their recipients. An email is written in two statements: its recipients
// first (invisible to the queue, which joins through the email), then every email of the
// request in one INSERT, so a batch is accepted whole or not at all and a crash in between
// leaves only rows nobody reads.
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";

export type EmailStatus = "scheduled" | "queued" | "deferred" | "delivered" | "partially_delivered" | "bounced" | "suppressed" | "failed" | "cancelled";
export type RecipientStatus = "scheduled" | "queued" | "deferred" | "delivered" | "bounced" | "complained" | "suppressed" | "failed" | "cancelled";

/** Recipients still waiting for the queue: everything else is final. */
export const pendingRecipientStatuses: readonly RecipientStatus[] = ["scheduled", "queued", "deferred"];

export interface NewEmail {
  id: string;
  tenantId: string;
  domainId: string;
  keyId: string;
  fromAddress: string;
  fromHeader: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  tags: { name: string; value: string }[];
  templateId: string | null;
  messageId: string;
  /** The composed MIME message. */
  message: Buffer;
  status: "scheduled" | "queued" | "suppressed";
  scheduledAt: number | null;
  /** Every envelope recipient with the state it starts in. */
  recipients: { address: string; domain: string; status: "scheduled" | "queued" | "suppressed" }[];
}

export interface StoredEmail extends Omit<NewEmail, "message" | "recipients" | "status"> {
  status: EmailStatus;
  messageBytes: number;
  createdAt: number;
  updatedAt: number;
}

export interface StoredRecipient {
  emailId: string;
  address: string;
  tenantId: string;
  domain: string;
  status: RecipientStatus;
  attempts: number;
  nextAttemptAt: number | null;
  code: number | null;
  enhancedCode: string | null;
  replyText: string | null;
  mxHost: string | null;
  bounceClass: string | null;
  action: string | null;
  updatedAt: number;
}

export interface EmailSearch {
  recipient?: string;
  status?: EmailStatus;
  messageId?: string;
  tag?: { name: string; value: string };
  createdAfter?: number;
  createdBefore?: number;
}

/** SQLite allows 32,766 bound values in one statement; recipients have 8 columns. */
const recipientRowsPerStatement = 2_000;

type Row = Record<string, unknown>;

const json = (value: unknown) => JSON.parse(String(value));

export const storedEmail = (row: Row): StoredEmail => ({
  id: String(row.id),
  tenantId: String(row.tenant_id),
  domainId: String(row.domain_id),
  keyId: String(row.key_id),
  fromAddress: String(row.from_address),
  fromHeader: String(row.from_header),
  to: json(row.to_addresses),
  cc: json(row.cc_addresses),
  bcc: json(row.bcc_addresses),
  replyTo: json(row.reply_to),
  subject: String(row.subject),
  tags: json(row.tags),
  templateId: (row.template_id as string | null) ?? null,
  messageId: String(row.message_id),
  status: row.status as EmailStatus,
  messageBytes: Number(row.message_bytes),
  scheduledAt: time(row.scheduled_at as number | null),
  createdAt: time(row.created_at as number)!,
  updatedAt: time(row.updated_at as number)!,
});

export const storedRecipient = (row: Row): StoredRecipient => ({
  emailId: String(row.email_id),
  address: String(row.address),
  tenantId: String(row.tenant_id),
  domain: String(row.domain),
  status: row.status as RecipientStatus,
  attempts: Number(row.attempts),
  nextAttemptAt: time(row.next_attempt_at as number | null),
  code: row.code === null ? null : Number(row.code),
  enhancedCode: (row.enhanced_code as string | null) ?? null,
  replyText: (row.reply_text as string | null) ?? null,
  mxHost: (row.mx_host as string | null) ?? null,
  bounceClass: (row.bounce_class as string | null) ?? null,
  action: (row.action as string | null) ?? null,
  updatedAt: time(row.updated_at as number)!,
});

/** Every column but the message itself, which only the queue reads. */
const emailColumns = `id, tenant_id, domain_id, key_id, from_address, from_header, to_addresses, cc_addresses, bcc_addresses, reply_to, subject, tags, template_id, message_id, message_bytes, status, scheduled_at, created_at, updated_at`;

export class EmailStore {
  constructor(private readonly sql: SQL) {}

  /** Writes the emails of one request: all of them, or (after a crash) none visibly. */
  async insert(emails: NewEmail[], now: number): Promise<void> {
    const recipients = emails.flatMap((email) =>
      email.recipients.map((recipient) => ({
        email_id: email.id,
        address: recipient.address,
        tenant_id: email.tenantId,
        domain: recipient.domain,
        status: recipient.status,
        attempts: 0,
        next_attempt_at: recipient.status === "suppressed" ? null : (email.scheduledAt ?? now),
        updated_at: now,
      })),
    );
    for (let start = 0; start < recipients.length; start += recipientRowsPerStatement) {
      await this.sql`INSERT INTO mail_recipients ${this.sql(recipients.slice(start, start + recipientRowsPerStatement))}`;
    }
    const rows = emails.map((email) => ({
      id: email.id,
      tenant_id: email.tenantId,
      domain_id: email.domainId,
      key_id: email.keyId,
      from_address: email.fromAddress,
      from_header: email.fromHeader,
      to_addresses: JSON.stringify(email.to),
      cc_addresses: JSON.stringify(email.cc),
      bcc_addresses: JSON.stringify(email.bcc),
      reply_to: JSON.stringify(email.replyTo),
      subject: email.subject,
      tags: JSON.stringify(email.tags),
      template_id: email.templateId,
      message_id: email.messageId,
      message: email.message.toString("latin1"),
      message_bytes: email.message.length,
      status: email.status,
      scheduled_at: email.scheduledAt,
      created_at: now,
      updated_at: now,
    }));
    await this.sql`INSERT INTO mail_emails ${this.sql(rows)}`;
  }

  async ofTenant(tenantId: string, id: string): Promise<StoredEmail | null> {
    const [row] = await this.sql.unsafe(`SELECT ${emailColumns} FROM mail_emails WHERE id = $1 AND tenant_id = $2`, [id, tenantId]);
    return row ? storedEmail(row) : null;
  }

  async exists(id: string): Promise<boolean> {
    const [row] = await this.sql`SELECT id FROM mail_emails WHERE id = ${id}`;
    return row !== undefined;
  }

  /** The email with this Message-ID (as in the header, with angle brackets), of any tenant. */
  async byMessageId(messageId: string): Promise<StoredEmail | null> {
    const [row] = await this.sql.unsafe(`SELECT ${emailColumns} FROM mail_emails WHERE message_id = $1`, [messageId]);
    return row ? storedEmail(row) : null;
  }

  async byId(id: string): Promise<StoredEmail | null> {
    const [row] = await this.sql.unsafe(`SELECT ${emailColumns} FROM mail_emails WHERE id = $1`, [id]);
    return row ? storedEmail(row) : null;
  }

  /** The composed message, or null once retention dropped it. */
  async message(id: string): Promise<Buffer | null> {
    const [row] = await this.sql`SELECT message FROM mail_emails WHERE id = ${id}`;
    return row?.message == null ? null : Buffer.from(String(row.message), "latin1");
  }

  async replaceMessage(id: string, message: Buffer): Promise<void> {
    await this.sql`UPDATE mail_emails SET message = ${message.toString("latin1")}, message_bytes = ${message.length} WHERE id = ${id}`;
  }

  async recipients(emailId: string): Promise<StoredRecipient[]> {
    const rows = await this.sql`SELECT * FROM mail_recipients WHERE email_id = ${emailId} ORDER BY address`;
    return (rows as Row[]).map(storedRecipient);
  }

  /** Newest first (by creation, then id), `limit` rows after the email `after`. */
  async search(tenantId: string, search: EmailSearch, limit: number, after: string | null): Promise<StoredEmail[]> {
    const where = ["e.tenant_id = $1"];
    const values: unknown[] = [tenantId];
    const bind = (value: unknown) => {
      values.push(value);
      return `$${values.length}`;
    };
    if (search.status !== undefined) where.push(`e.status = ${bind(search.status)}`);
    if (search.messageId !== undefined) where.push(`e.message_id = ${bind(search.messageId)}`);
    if (search.createdAfter !== undefined) where.push(`e.created_at >= ${bind(search.createdAfter)}`);
    if (search.createdBefore !== undefined) where.push(`e.created_at < ${bind(search.createdBefore)}`);
    if (search.recipient !== undefined) {
      where.push(`EXISTS (SELECT 1 FROM mail_recipients r WHERE r.email_id = e.id AND r.tenant_id = e.tenant_id AND r.address = ${bind(search.recipient)})`);
    }
    if (search.tag !== undefined) {
      // Tags are stored as a JSON array of {name, value} whose parts are [A-Za-z0-9_-]: the
      // serialised pair is matched as text, with no character that LIKE treats specially but _.
      const needle = JSON.stringify({ name: search.tag.name, value: search.tag.value }).replaceAll("_", "\\_");
      where.push(`e.tags LIKE ${bind(`%${needle}%`)} ESCAPE '\\'`);
    }
    if (after !== null) {
      where.push(`(e.created_at, e.id) < (SELECT created_at, id FROM mail_emails WHERE id = ${bind(after)})`);
    }
    const columns = emailColumns.split(", ").map((column) => `e.${column}`).join(", ");
    const rows = await this.sql.unsafe(
      `SELECT ${columns} FROM mail_emails e WHERE ${where.join(" AND ")} ORDER BY e.created_at DESC, e.id DESC LIMIT ${bind(limit)}`,
      values,
    );
    return (rows as Row[]).map(storedEmail);
  }

  /**
   * Moves a scheduled email to `at`: only recipients still scheduled and not held by a worker.
   * Answers how many moved (0: it is no longer scheduled).
   */
  async reschedule(emailId: string, at: number, now: number): Promise<number> {
    const moved = await this.sql`
      UPDATE mail_recipients SET next_attempt_at = ${at}, updated_at = ${now}
      WHERE email_id = ${emailId} AND status = 'scheduled' AND (lease_until IS NULL OR lease_until < ${now})
      RETURNING address`;
    if (moved.length > 0) await this.sql`UPDATE mail_emails SET scheduled_at = ${at}, updated_at = ${now} WHERE id = ${emailId}`;
    return moved.length;
  }

  /** Cancels the recipients still scheduled and not held by a worker; answers how many. */
  async cancel(emailId: string, now: number): Promise<number> {
    const cancelled = await this.sql`
      UPDATE mail_recipients SET status = 'cancelled', next_attempt_at = NULL, updated_at = ${now}
      WHERE email_id = ${emailId} AND status = 'scheduled' AND (lease_until IS NULL OR lease_until < ${now})
      RETURNING address`;
    if (cancelled.length > 0) await this.refreshStatus(emailId, now);
    return cancelled.length;
  }

  /**
   * Sets the email's status from its recipients' in one statement (so two workers finishing
   * different domains of one email cannot leave a stale answer): waiting states first, then
   * the final outcome, where recipients left out (suppressed when accepted, cancelled) do not
   * make a delivered email partial.
   */
  async refreshStatus(emailId: string, now: number): Promise<void> {
    await this.sql`
      UPDATE mail_emails SET updated_at = ${now}, status = COALESCE((
        SELECT CASE
          WHEN SUM(CASE WHEN status = 'scheduled' THEN 1 ELSE 0 END) > 0 THEN 'scheduled'
          WHEN SUM(CASE WHEN status = 'deferred' THEN 1 ELSE 0 END) > 0 THEN 'deferred'
          WHEN SUM(CASE WHEN status = 'queued' THEN 1 ELSE 0 END) > 0 THEN 'queued'
          WHEN SUM(CASE WHEN status IN ('delivered', 'complained') THEN 1 ELSE 0 END) > 0
            AND SUM(CASE WHEN status IN ('delivered', 'complained', 'suppressed', 'cancelled') THEN 1 ELSE 0 END) = COUNT(*) THEN 'delivered'
          WHEN SUM(CASE WHEN status IN ('delivered', 'complained') THEN 1 ELSE 0 END) > 0 THEN 'partially_delivered'
          WHEN SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) > 0
            AND SUM(CASE WHEN status IN ('cancelled', 'suppressed') THEN 1 ELSE 0 END) = COUNT(*) THEN 'cancelled'
          WHEN SUM(CASE WHEN status = 'bounced' THEN 1 ELSE 0 END) > 0 THEN 'bounced'
          WHEN SUM(CASE WHEN status = 'suppressed' THEN 1 ELSE 0 END) = COUNT(*) THEN 'suppressed'
          ELSE 'failed'
        END FROM mail_recipients WHERE email_id = ${emailId}
      ), status)
      WHERE id = ${emailId}`;
  }
}
