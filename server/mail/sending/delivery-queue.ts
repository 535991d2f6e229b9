// The delivery queue's passes: claim due recipients tenant by tenant, deliver each email to each
// of its recipient domains (DKIM-signed, direct to the MX or through the relay), keep every
// attempt's conversation, and settle each recipient: delivered, deferred (retried on the
// schedule of retry-schedule.ts), bounced with its class (a hard bounce that means the address
// is gone suppresses it), or failed (we could not send at all). Each settled hop is an event.
// A pass is at-least-once: a worker killed after the recipient's server took the message but
// before the outcome was written sends it again when its lease expires, as any MTA would.
import { minuteMs } from "../../clock.ts";
import { PassLoop } from "../../pass-loop.ts";
import { classifySmtpAnswer } from "../bounces/classify.ts";
import { deliver, type DeliveryInput, type DeliveryResult, type DeliveryRoute, type RecipientResult } from "../delivery/smtp-delivery.ts";
import type { AttemptStore } from "../store/attempts.ts";
import type { DomainStore } from "../store/domains.ts";
import type { EmailStore, StoredEmail, StoredRecipient } from "../store/emails.ts";
import type { EventStore, NewMailEvent } from "../store/events.ts";
import type { QueueStore, RecipientOutcome } from "../store/queue.ts";
import type { SuppressionStore } from "../store/suppressions.ts";
import { emailEventData } from "./event-data.ts";
import { retryDelayAfter } from "./retry-schedule.ts";
import { returnPathFor } from "../inbound/return-path.ts";
import { suppressionKey } from "./suppression-key.ts";

/** How long a claimed recipient stays with its worker: longer than the slowest delivery (every MX timing out). */
export const deliveryLeaseMs = 15 * minuteMs;
export const tenantsPerPass = 100;
/** An email has at most 50 recipients (compose/addresses.ts): a tenant's share of a pass is bounded. */
export const emailsPerTenantPerPass = 20;
/** SMTP sessions open at once in one pass. */
export const concurrentDeliveriesMax = 16;

/** Enhanced codes given to failures without an SMTP answer, so they classify as a server's would. */
const permanentLookupCodes: Record<string, string> = { domain_not_found: "5.1.2", null_mx: "5.1.10", mx_hosts_not_found: "5.1.2", invalid_address: "5.1.3" };

export interface DeliveryQueueDependencies {
  emails: EmailStore;
  queue: QueueStore;
  attempts: AttemptStore;
  events: EventStore;
  suppressions: SuppressionStore;
  domains: DomainStore;
  /** The route of this pass (a fresh DNS resolver each time: Bun caches answers). */
  route: () => DeliveryRoute;
  heloName: string;
  /** Who holds the leases this queue takes (unique per process). */
  owner: string;
  now: () => number;
  log: (line: string) => void;
  deliver?: (input: DeliveryInput) => Promise<DeliveryResult>;
}

export class DeliveryQueue {
  private readonly loop: PassLoop;
  private stopped = false;
  private current: Promise<number> | null = null;

  constructor(private readonly deps: DeliveryQueueDependencies) {
    this.loop = new PassLoop(async () => {
      if (this.stopped) return { done: 0, more: false };
      const { settled, more } = await this.onePass();
      return { done: settled, more: more && !this.stopped };
    }, (error) => deps.log(`mail: delivery pass failed: ${error.message}`));
  }

  /** Starts passing now, or asks the running passes for one more. */
  kick(): void {
    void this.pass();
  }

  /** Passes until nothing more is due now (one more if passes were running); answers how many recipients they settled. */
  pass(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    this.current = this.loop.run();
    return this.current;
  }

  /** No pass starts after this; answers once the running one ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.current;
  }

  private async onePass(): Promise<{ settled: number; more: boolean }> {
    const { queue, now } = this.deps;
    const route = this.deps.route();
    const dueByTenant: string[][] = [];
    for (const tenantId of await queue.tenantsDue(now(), tenantsPerPass)) dueByTenant.push(await queue.emailsDue(tenantId, now(), emailsPerTenantPerPass));
    // Tenants take turns: the first email of each, then the second of each, and so on.
    const emailIds = Array.from({ length: Math.max(0, ...dueByTenant.map((ids) => ids.length)) }, (_, index) => dueByTenant.map((ids) => ids[index])).flat().filter((id) => id !== undefined);
    let settled = 0;
    let next = 0;
    const worker = async () => {
      while (next < emailIds.length) settled += await this.deliverEmail(emailIds[next++]!, route);
    };
    await Promise.all(Array.from({ length: Math.min(concurrentDeliveriesMax, emailIds.length) }, worker));
    return { settled, more: dueByTenant.length === tenantsPerPass || dueByTenant.some((ids) => ids.length === emailsPerTenantPerPass) };
  }

  /** Fires the email if it was scheduled, then delivers it to each recipient domain in turn, each claimed just before. */
  private async deliverEmail(emailId: string, route: DeliveryRoute): Promise<number> {
    const { queue, emails, now, owner } = this.deps;
    const email = await emails.byId(emailId);
    if (!email) return 0;
    if ((await queue.fire(email.id, now())) > 0 && (await queue.markEmailFired(email.id, now()))) {
      await this.emit([{ tenantId: email.tenantId, type: "email.sent", emailId: email.id, data: emailEventData(email) }]);
    }
    let settled = 0;
    for (const domain of await queue.domainsDue(email.id, now())) {
      const claimed = await queue.claim(email.id, domain, owner, now(), deliveryLeaseMs);
      if (claimed.length > 0) settled += await this.deliverGroup(email, claimed, route);
    }
    return settled;
  }

  private async deliverGroup(email: StoredEmail, claimed: StoredRecipient[], route: DeliveryRoute): Promise<number> {
    const { suppressions, domains } = this.deps;
    let at = this.deps.now();
    const suppressed = await suppressions.suppressed(email.tenantId, claimed.map((recipient) => suppressionKey(recipient.address)));
    const sendable = claimed.filter((recipient) => !suppressed.has(suppressionKey(recipient.address)));
    const outcomes: { outcome: RecipientOutcome; event: NewMailEvent }[] = claimed
      .filter((recipient) => suppressed.has(suppressionKey(recipient.address)))
      .map((recipient) => this.failed(email, recipient, "suppressed", `${recipient.address} was put on the suppression list after the email was accepted: not sent`));
    if (sendable.length > 0) {
      const domain = await domains.ofTenant(email.tenantId, email.domainId);
      const message = domain ? await this.deps.emails.message(email.id) : null;
      if (!domain) outcomes.push(...sendable.map((recipient) => this.failed(email, recipient, "domain_removed", "the sending domain was deleted before the email could be sent")));
      else if (!message) outcomes.push(...sendable.map((recipient) => this.failed(email, recipient, "content_expired", "the email's content was removed by the log retention before it could be sent")));
      else {
        const result = await this.attempt({
          message,
          dkim: { domainName: domain.name, keySelector: domain.dkimSelector, privateKey: domain.dkimPrivateKey },
          envelopeFrom: returnPathFor(email.id, domain.name),
          recipients: sendable.map((recipient) => recipient.address),
          heloName: this.deps.heloName,
          route,
        });
        at = this.deps.now();
        if ("error" in result) outcomes.push(...sendable.map((recipient) => this.failed(email, recipient, result.code, result.error)));
        else {
          await this.deps.attempts.record(email.id, sendable[0]!.domain, result);
          for (const recipient of sendable) {
            const answer = result.recipients.find((candidate) => candidate.recipient === recipient.address);
            if (answer) outcomes.push(this.outcomeOf(email, recipient, answer, result.tls, at));
          }
        }
      }
    }
    return this.settle(email, outcomes, at);
  }

  private async attempt(input: DeliveryInput): Promise<DeliveryResult | { error: string; code: string }> {
    try {
      return await (this.deps.deliver ?? deliver)(input);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return { error: (error as Error).message, code: typeof code === "string" ? code : "delivery_error" };
    }
  }

  private outcomeOf(email: StoredEmail, recipient: StoredRecipient, answer: RecipientResult, tls: boolean, at: number): { outcome: RecipientOutcome; event: NewMailEvent } {
    const smtp = { code: answer.code, enhancedCode: answer.enhancedCode, replyText: answer.text, mxHost: answer.mxHost };
    const base = { emailId: email.id, address: recipient.address, ...smtp };
    const hop = { recipient: recipient.address, mx_host: answer.mxHost, smtp: { code: answer.code, enhanced_code: answer.enhancedCode, text: answer.text } };
    const event = (type: NewMailEvent["type"], extra: Record<string, unknown>): NewMailEvent => ({ tenantId: email.tenantId, type, emailId: email.id, recipient: recipient.address, data: emailEventData(email, { ...hop, ...extra }) });
    if (answer.outcome === "delivered") {
      return { outcome: { ...base, status: "delivered", nextAttemptAt: null, bounceClass: null, action: null }, event: event("email.delivered", { tls }) };
    }
    const enhanced = answer.enhancedCode ?? (answer.reason === null ? null : (permanentLookupCodes[answer.reason] ?? null));
    const classification = classifySmtpAnswer(answer.code, answer.outcome === "bounced" ? enhanced : answer.enhancedCode, answer.text);
    const attempt = recipient.attempts + 1;
    const bounce = { bounce_class: classification.class, kind: classification.kind, action: classification.action, reason: classification.reason, attempt };
    const delay = classification.kind === "soft" ? retryDelayAfter(attempt) : null;
    if (delay !== null) {
      const nextAttemptAt = at + delay;
      return {
        outcome: { ...base, status: "deferred", nextAttemptAt, bounceClass: classification.class, action: "retry" },
        event: event("email.deferred", { ...bounce, action: "retry", next_attempt_at: new Date(nextAttemptAt).toISOString() }),
      };
    }
    const gaveUp = classification.kind === "soft";
    const action = gaveUp ? "none" : classification.action;
    const reason = gaveUp ? `${classification.reason} Gave up after ${attempt} attempts.` : classification.reason;
    return {
      outcome: { ...base, status: "bounced", nextAttemptAt: null, bounceClass: classification.class, action },
      event: event("email.bounced", { ...bounce, action, reason }),
    };
  }

  private failed(email: StoredEmail, recipient: StoredRecipient, reason: string, message: string): { outcome: RecipientOutcome; event: NewMailEvent } {
    return {
      outcome: { emailId: email.id, address: recipient.address, status: reason === "suppressed" ? "suppressed" : "failed", nextAttemptAt: null, code: null, enhancedCode: null, replyText: message, mxHost: null, bounceClass: null, action: null },
      event: { tenantId: email.tenantId, type: "email.failed", emailId: email.id, recipient: recipient.address, data: emailEventData(email, { recipient: recipient.address, reason, message }) },
    };
  }

  /** Writes the outcomes, all as of `at` (when the attempt ended), so a retry is exactly its delay after the hop. */
  private async settle(email: StoredEmail, outcomes: { outcome: RecipientOutcome; event: NewMailEvent }[], at: number): Promise<number> {
    const { queue, suppressions, emails, owner } = this.deps;
    const events: NewMailEvent[] = [];
    for (const { outcome, event } of outcomes) {
      if (!(await queue.settle(outcome, owner, at))) continue;
      events.push(event);
      if (outcome.status === "bounced" && outcome.action === "suppress") {
        await suppressions.add({ tenantId: email.tenantId, address: suppressionKey(outcome.address), reason: "hard_bounce", emailId: email.id, bounceClass: outcome.bounceClass, detail: outcome.replyText }, at);
      }
    }
    await emails.refreshStatus(email.id, at);
    await this.emit(events, at);
    return events.length;
  }

  private async emit(events: NewMailEvent[], at = this.deps.now()): Promise<void> {
    if (events.length > 0) await this.deps.events.emit(events, at);
  }
}
