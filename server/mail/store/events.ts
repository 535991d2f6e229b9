// Every hop of every email and every domain transition, in one table: an email's history in
// the API (GET /v1/emails/{id}) and the source of webhook deliveries. An event is written once
// and never changed, except for `fanned_out`, which the webhook fan-out sets once it has made
// a delivery for each endpoint subscribed to the event's type.
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";

/** The ten webhook event types (docs/mail.md says what each means). */
export const mailEventTypes = [
  "email.scheduled",
  "email.sent",
  "email.delivered",
  "email.deferred",
  "email.bounced",
  "email.complained",
  "email.failed",
  "email.received",
  "domain.verified",
  "domain.failed",
] as const;
export type MailEventType = (typeof mailEventTypes)[number];

export interface MailEvent {
  id: string;
  tenantId: string;
  type: MailEventType;
  emailId: string | null;
  domainId: string | null;
  recipient: string | null;
  /** The event's payload: the `data` of its webhook body. */
  data: Record<string, unknown>;
  createdAt: number;
}

export type NewMailEvent = Omit<MailEvent, "id" | "createdAt" | "emailId" | "domainId" | "recipient"> &
  Partial<Pick<MailEvent, "emailId" | "domainId" | "recipient">>;

interface EventRow {
  id: string;
  tenant_id: string;
  type: MailEventType;
  email_id: string | null;
  domain_id: string | null;
  recipient: string | null;
  data: string;
  created_at: number | string;
}

export const mailEvent = (row: EventRow): MailEvent => ({
  id: row.id,
  tenantId: row.tenant_id,
  type: row.type,
  emailId: row.email_id,
  domainId: row.domain_id,
  recipient: row.recipient,
  data: JSON.parse(row.data) as Record<string, unknown>,
  createdAt: time(row.created_at)!,
});

/** The body a webhook endpoint receives for an event (Resend's shape). */
export const webhookBody = (event: MailEvent) => ({ type: event.type, created_at: new Date(event.createdAt).toISOString(), data: event.data });

/** SQLite allows 32,766 bound values in one statement; an event has 9 columns. */
const eventRowsPerStatement = 3_000;

export class EventStore {
  constructor(private readonly sql: SQL) {}

  /** Records events, up to eventRowsPerStatement in one statement (a batch send's in one commit). */
  async emit(events: NewMailEvent[], now: number): Promise<MailEvent[]> {
    const rows = events.map((event) => ({
      // UUIDv7: ordered by creation within a process, so events of one millisecond keep their order
      id: `evt_${Bun.randomUUIDv7().replaceAll("-", "")}`,
      tenant_id: event.tenantId,
      type: event.type,
      email_id: event.emailId ?? null,
      domain_id: event.domainId ?? null,
      recipient: event.recipient ?? null,
      data: JSON.stringify(event.data),
      created_at: now,
      fanned_out: 0,
    }));
    for (let start = 0; start < rows.length; start += eventRowsPerStatement) {
      await this.sql`INSERT INTO mail_events ${this.sql(rows.slice(start, start + eventRowsPerStatement))}`;
    }
    return rows.map(mailEvent);
  }

  /** An email's events, oldest first. */
  async ofEmail(emailId: string): Promise<MailEvent[]> {
    const rows = await this.sql`SELECT * FROM mail_events WHERE email_id = ${emailId} ORDER BY created_at, id`;
    return (rows as EventRow[]).map(mailEvent);
  }

  /** Events not yet fanned out to webhook endpoints, oldest first. */
  async notFannedOut(limit: number): Promise<MailEvent[]> {
    const rows = await this.sql`SELECT * FROM mail_events WHERE fanned_out = 0 ORDER BY created_at, id LIMIT ${limit}`;
    return (rows as EventRow[]).map(mailEvent);
  }

  async markFannedOut(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.sql`UPDATE mail_events SET fanned_out = 1 WHERE id IN ${this.sql(ids)}`;
  }
}
