// Bounces and complaints that arrive after delivery, at our return path: a DSN (RFC 3464, or a
// plain-text bounce) from a server further along that gave up, or an ARF complaint (RFC 5965)
// from a mailbox provider whose user marked the email as spam. Each is matched to its email by
// the return-path address it was sent to (`bounce+{email id}@bounces.{domain}`), else by the
// original's Message-ID or envelope id, and to the recipient it names. A failed recipient
// becomes `bounced` with its class (suppressed when the class means the address is gone), a
// complaint makes the recipient `complained` and suppresses it; each is an event once, however
// often the report is repeated. Reports that match nothing of the tenant's are logged.
import type { ComplaintReport } from "../bounces/arf.ts";
import type { DeliveryStatusReport, ReportedRecipient } from "../bounces/dsn.ts";
import { oneLine } from "../bounces/text.ts";
import { emailIdFromReturnPath } from "../inbound/return-path.ts";
import type { ReportHandler, ReportInput } from "../inbound/report-handler.ts";
import type { EmailStore, RecipientStatus, StoredEmail } from "../store/emails.ts";
import type { EventStore, NewMailEvent } from "../store/events.ts";
import type { QueueStore } from "../store/queue.ts";
import type { SuppressionStore } from "../store/suppressions.ts";
import { emailEventData } from "./event-data.ts";
import { suppressionKey } from "./suppression-key.ts";

/** A report can say a recipient failed after any of these (a DSN may even beat our own settle). */
const bounceableStatuses: RecipientStatus[] = ["delivered", "queued", "deferred"];
const loggedCharsMax = 254;

export interface ReportsDependencies {
  emails: EmailStore;
  queue: QueueStore;
  events: EventStore;
  suppressions: SuppressionStore;
  now: () => number;
  log: (line: string) => void;
}

export class ReportsService implements ReportHandler {
  constructor(private readonly deps: ReportsDependencies) {}

  async bounce({ tenantId, rcptTo, report }: ReportInput<DeliveryStatusReport>): Promise<void> {
    const email = await this.match(tenantId, rcptTo, report.originalMessageId, report.originalEnvelopeId);
    if (!email) return this.unmatched("bounce", tenantId, rcptTo);
    const recipients = await this.deps.emails.recipients(email.id);
    const events: NewMailEvent[] = [];
    for (const reported of report.recipients) {
      const recipient = recipients.find((candidate) => suppressionKey(candidate.address) === suppressionKey(reported.recipient));
      if (!recipient || reported.classification === null) continue;
      if (reported.action === "delayed") {
        events.push(this.event(email, "email.deferred", recipient.address, this.bounceData(reported, report, "retry")));
        continue;
      }
      if (reported.action !== "failed") continue;
      const { classification } = reported;
      const action = classification.action === "suppress" ? "suppress" : "none";
      const changed = await this.deps.queue.markReported(
        email.id,
        recipient.address,
        bounceableStatuses,
        { status: "bounced", code: null, enhancedCode: reported.status, replyText: reported.diagnostic, bounceClass: classification.class, action },
        this.deps.now(),
      );
      if (!changed) continue;
      if (action === "suppress") await this.suppress(email, recipient.address, "hard_bounce", classification.class, reported.diagnostic);
      events.push(this.event(email, "email.bounced", recipient.address, this.bounceData(reported, report, action)));
    }
    await this.finish(email, events);
  }

  async complaint({ tenantId, rcptTo, report }: ReportInput<ComplaintReport>): Promise<void> {
    const email = await this.match(tenantId, rcptTo, report.originalMessageId, null);
    if (!email) return this.unmatched("complaint", tenantId, rcptTo);
    if (report.feedbackType === "not-spam") return;
    const recipients = await this.deps.emails.recipients(email.id);
    // Providers often redact who complained; an email with one recipient names them anyway. A
    // named recipient who is not one of the email's matches nobody.
    const recipient =
      report.originalRecipient === null
        ? recipients.length === 1 ? recipients[0] : undefined
        : recipients.find((candidate) => suppressionKey(candidate.address) === suppressionKey(report.originalRecipient!));
    if (!recipient) return this.unmatched("complaint", tenantId, rcptTo);
    const changed = await this.deps.queue.markReported(
      email.id,
      recipient.address,
      ["delivered"],
      { status: "complained", code: null, enhancedCode: null, replyText: `complaint (${report.feedbackType})${report.userAgent === null ? "" : ` from ${report.userAgent}`}`, bounceClass: null, action: "suppress" },
      this.deps.now(),
    );
    await this.suppress(email, recipient.address, "complaint", null, `feedback type ${report.feedbackType}`);
    const events = changed
      ? [this.event(email, "email.complained", recipient.address, { feedback_type: report.feedbackType, user_agent: report.userAgent, arrival_date: report.arrivalDate, action: "suppress" })]
      : [];
    await this.finish(email, events);
  }

  private async match(tenantId: string, rcptTo: string, messageId: string | null, envelopeId: string | null): Promise<StoredEmail | null> {
    const candidates = [emailIdFromReturnPath(rcptTo), envelopeId];
    for (const id of candidates) {
      if (id === null) continue;
      const email = await this.deps.emails.byId(id);
      if (email?.tenantId === tenantId) return email;
    }
    if (messageId === null) return null;
    const email = await this.deps.emails.byMessageId(messageId);
    return email?.tenantId === tenantId ? email : null;
  }

  private bounceData(reported: ReportedRecipient, report: DeliveryStatusReport, action: string) {
    return {
      bounce_class: reported.classification!.class,
      kind: reported.classification!.kind,
      action,
      reason: reported.classification!.reason,
      source: "report",
      reporting_mta: report.reportingMta,
      status: reported.status,
      diagnostic: reported.diagnostic,
    };
  }

  private event(email: StoredEmail, type: NewMailEvent["type"], recipient: string, hop: Record<string, unknown>): NewMailEvent {
    return { tenantId: email.tenantId, type, emailId: email.id, recipient, data: emailEventData(email, { recipient, ...hop }) };
  }

  private async suppress(email: StoredEmail, address: string, reason: "hard_bounce" | "complaint", bounceClass: string | null, detail: string | null): Promise<void> {
    await this.deps.suppressions.add({ tenantId: email.tenantId, address: suppressionKey(address), reason, emailId: email.id, bounceClass, detail }, this.deps.now());
  }

  private async finish(email: StoredEmail, events: NewMailEvent[]): Promise<void> {
    await this.deps.emails.refreshStatus(email.id, this.deps.now());
    if (events.length > 0) await this.deps.events.emit(events, this.deps.now());
  }

  private unmatched(kind: string, tenantId: string, rcptTo: string): void {
    this.deps.log(`mail: a ${kind} report for tenant ${tenantId} at ${oneLine(rcptTo, loggedCharsMax)} matches none of its emails`);
  }
}
