// Reading a tenant's emails (one with its recipients, hops and attempts; a search) and changing
// a scheduled one: a new time, or cancelled. Only recipients still scheduled and not already
// taken by the queue move, so an email whose time has come cannot be cancelled half-way.
import { ApiError, notFound } from "../../http/errors.ts";
import { parseScheduledAt } from "../compose/schedule.ts";
import { attemptDto, emailDto, eventDto, recipientDto } from "../email-dto.ts";
import type { AttemptStore } from "../store/attempts.ts";
import type { EmailSearch, EmailStore, StoredEmail } from "../store/emails.ts";
import type { EventStore } from "../store/events.ts";
import { monthOf } from "../plans/month.ts";
import type { UsageService } from "../plans/usage-service.ts";

export class EmailsService {
  constructor(
    private readonly emails: EmailStore,
    private readonly events: EventStore,
    private readonly attempts: AttemptStore,
    private readonly usage: UsageService,
    private readonly now: () => number,
  ) {}

  async get(tenantId: string, id: string): Promise<StoredEmail> {
    const email = await this.emails.ofTenant(tenantId, id);
    if (!email) throw notFound("email");
    return email;
  }

  /** The email with every recipient's state, every hop and every SMTP attempt. */
  async detail(tenantId: string, id: string) {
    const email = await this.get(tenantId, id);
    const [recipients, events, attempts] = await Promise.all([this.emails.recipients(id), this.events.ofEmail(id), this.attempts.ofEmail(id)]);
    return { ...emailDto(email), recipients: recipients.map(recipientDto), events: events.map(eventDto), attempts: attempts.map(attemptDto) };
  }

  search(tenantId: string, search: EmailSearch, limit: number, after: string | null): Promise<StoredEmail[]> {
    return this.emails.search(tenantId, search, limit, after);
  }

  async reschedule(tenantId: string, id: string, scheduledAt: unknown): Promise<StoredEmail> {
    const email = await this.get(tenantId, id);
    const at = parseScheduledAt(scheduledAt, new Date(this.now()));
    if (at === null) throw new ApiError(422, "missing_field", "scheduled_at: is required");
    const time = Date.parse(at);
    if (email.status !== "scheduled" || (await this.emails.reschedule(id, time, this.now())) === 0) throw notScheduled(email, "rescheduled");
    const message = await this.emails.message(id);
    if (message) await this.emails.replaceMessage(id, withDate(message, new Date(time)));
    return this.get(tenantId, id);
  }

  async cancel(tenantId: string, id: string): Promise<StoredEmail> {
    const email = await this.get(tenantId, id);
    const cancelled = email.status === "scheduled" ? await this.emails.cancel(id, this.now()) : 0;
    if (cancelled === 0) throw notScheduled(email, "cancelled");
    // never sent: its recipients are given back to the month they were counted in
    await this.usage.release(tenantId, cancelled, monthOf(email.createdAt));
    return this.get(tenantId, id);
  }
}

const notScheduled = (email: StoredEmail, verb: string) =>
  new ApiError(409, "not_scheduled", `only a scheduled email can be ${verb}; this one is ${email.status === "scheduled" ? "being sent" : email.status}`);

/** The message with its Date header set to `date` (the header block only; the body is untouched). */
function withDate(message: Buffer, date: Date): Buffer {
  const text = message.toString("latin1");
  const headerEnd = text.indexOf("\r\n\r\n");
  const header = text.slice(0, headerEnd).replace(/^Date: .*$/im, `Date: ${date.toUTCString().replace("GMT", "+0000")}`);
  return Buffer.from(header + text.slice(headerEnd), "latin1");
}
