// Accepting emails: POST /v1/emails (one) and /v1/emails/batch (up to batchEmailsMax, accepted
// whole or refused whole). Each request is validated completely, its sender must be a verified
// domain of the tenant (and the key's own domain for a key restricted to one), suppressed
// recipients are left out and named in the answer (an email whose recipients are all
// suppressed is refused), and the answer is given only once every email is durably stored.
// Idempotency-Key: the same key and body answer the same ids for 24 hours; another body under
// the same key is 422; a request still running under it is 409. Each recipient sent to counts
// once against the month's usage (plans/usage-service.ts) before anything is written.
import { dayMs, minuteMs } from "../../clock.ts";
import { sha256Hex } from "../../crypto.ts";
import { ApiError, validation } from "../../http/errors.ts";
import { ComposeError } from "../compose/errors.ts";
import { buildMessage } from "../compose/mime.ts";
import type { StoredTemplate } from "../compose/template.ts";
import { envelopeRecipients, validateSendRequest, type ComposedEmail } from "../compose/validate.ts";
import type { DomainsService } from "../domains/domains-service.ts";
import type { MailDomain } from "../store/domains.ts";
import type { EmailStore, NewEmail } from "../store/emails.ts";
import type { EventStore, NewMailEvent } from "../store/events.ts";
import { inProgressStatus, type IdempotencyRecord, type IdempotencyStore } from "../store/idempotency.ts";
import type { SuppressionStore } from "../store/suppressions.ts";
import type { UsageService } from "../plans/usage-service.ts";
import type { MailKey } from "../store/tenants.ts";
import { emailEventData } from "./event-data.ts";
import { returnPathFor } from "../inbound/return-path.ts";
import { suppressionKey } from "./suppression-key.ts";

export const batchEmailsMax = 100;
export const idempotencyKeyLengthMax = 255;
export const idempotencyRetentionMs = dayMs;
/** A claimed key whose request has not finished in this long is taken to have crashed. */
export const idempotencyAbandonedMs = 2 * minuteMs;

export interface SendAnswer {
  id: string;
  status: "queued" | "scheduled";
  /** Present only when recipients were left out because they are suppressed. */
  suppressed_recipients?: string[];
}

export type SendOutcome<T> = { body: T; replayed: boolean };

export interface SendDependencies {
  emails: EmailStore;
  events: EventStore;
  suppressions: SuppressionStore;
  idempotency: IdempotencyStore;
  domains: DomainsService;
  usage: UsageService;
  findTemplate: (tenantId: string, id: string) => Promise<StoredTemplate | null>;
  now: () => number;
  /** Called once emails are queued to send now, so the queue need not wait for its next tick. */
  onQueued: () => void;
}

interface Prepared {
  email: NewEmail;
  answer: SendAnswer;
  events: NewMailEvent[];
}

const visibleAscii = /^[\x21-\x7e]+$/;

export class SendService {
  constructor(private readonly deps: SendDependencies) {}

  async send(key: MailKey, body: unknown, idempotencyKey: string | null): Promise<SendOutcome<SendAnswer>> {
    return this.accept(key, "/v1/emails", body, idempotencyKey, async () => [await this.prepare(key, body, "")], (answers) => answers[0]!);
  }

  async sendBatch(key: MailKey, body: unknown, idempotencyKey: string | null): Promise<SendOutcome<{ data: SendAnswer[] }>> {
    return this.accept(key, "/v1/emails/batch", body, idempotencyKey, async () => {
      if (!Array.isArray(body)) throw validation("body: must be an array of send requests");
      if (body.length === 0) throw validation("body: must hold at least one send request");
      if (body.length > batchEmailsMax) throw validation(`body: at most ${batchEmailsMax} emails in a batch; got ${body.length}`);
      const prepared: Prepared[] = [];
      for (const [index, request] of body.entries()) prepared.push(await this.prepare(key, request, `[${index}].`));
      return prepared;
    }, (answers) => ({ data: answers }));
  }

  private async accept<T>(key: MailKey, path: string, body: unknown, idempotencyKey: string | null, prepare: () => Promise<Prepared[]>, answer: (answers: SendAnswer[]) => T): Promise<SendOutcome<T>> {
    if (idempotencyKey !== null && (idempotencyKey.length > idempotencyKeyLengthMax || !visibleAscii.test(idempotencyKey))) {
      throw validation(`Idempotency-Key must be 1-${idempotencyKeyLengthMax} visible ASCII characters`);
    }
    const requestHash = sha256Hex(JSON.stringify([path, body]));
    // A retry is answered before anything is checked again: since the first request, its
    // recipient may have bounced (suppressed), or its domain or template gone.
    if (idempotencyKey !== null) {
      const held = await this.deps.idempotency.get(key.tenantId, idempotencyKey);
      const earlier = held === null ? null : await this.settleHeld(key.tenantId, idempotencyKey, requestHash, held);
      if (earlier !== null) return { body: earlier as T, replayed: true };
    }
    const prepared = await prepare();
    const planned = answer(prepared.map((item) => item.answer));
    const { now } = this.deps;
    let claimedAt: number | null = null;
    if (idempotencyKey !== null) {
      const claim = await this.claimKey(key.tenantId, idempotencyKey, requestHash, planned);
      if (claim.kind === "replay") return { body: claim.body as T, replayed: true };
      claimedAt = claim.at;
    }
    const at = now();
    const counted = prepared.reduce((sum, item) => sum + item.email.recipients.filter((recipient) => recipient.status !== "suppressed").length, 0);
    let reservation: { month: string } | null = null;
    try {
      reservation = await this.deps.usage.reserve(key.tenantId, counted, at);
      await this.deps.emails.insert(prepared.map((item) => item.email), at);
    } catch (error) {
      if (reservation !== null) await this.deps.usage.release(key.tenantId, counted, reservation.month);
      if (idempotencyKey !== null) await this.deps.idempotency.release(key.tenantId, idempotencyKey, claimedAt!);
      throw error;
    }
    await this.deps.events.emit(prepared.flatMap((item) => item.events), at);
    if (idempotencyKey !== null) await this.deps.idempotency.finish(key.tenantId, idempotencyKey, 200, planned);
    if (prepared.some((item) => item.answer.status === "queued")) this.deps.onQueued();
    return { body: planned, replayed: false };
  }

  /** Claims the key for this request, or answers the earlier request's answer. */
  private async claimKey(tenantId: string, key: string, requestHash: string, planned: unknown): Promise<{ kind: "claimed"; at: number } | { kind: "replay"; body: unknown }> {
    for (;;) {
      const at = this.deps.now();
      const held = await this.deps.idempotency.claim(tenantId, key, requestHash, planned, at);
      if (held === null) return { kind: "claimed", at };
      const earlier = await this.settleHeld(tenantId, key, requestHash, held);
      if (earlier !== null) return { kind: "replay", body: earlier };
    }
  }

  /**
   * What a key another request holds means for this one: its answer to replay; a refusal (another
   * body: 422; still running: 409); or null once the key is free again (expired, or its request
   * died before writing anything). Freeing is conditional on the record being the one read, so
   * of two retries racing only one takes the key.
   */
  private async settleHeld(tenantId: string, key: string, requestHash: string, held: IdempotencyRecord): Promise<unknown> {
    const { idempotency, emails, now } = this.deps;
    if (now() - held.createdAt >= idempotencyRetentionMs) {
      await idempotency.release(tenantId, key, held.createdAt);
      return null;
    }
    if (held.requestHash !== requestHash) {
      throw new ApiError(422, "idempotency_key_reused", "this Idempotency-Key was used with a different request in the last 24 hours; use a new key for a new email");
    }
    if (held.status !== inProgressStatus) return held.response;
    const plannedId = firstId(held.response);
    if (plannedId !== null && (await emails.exists(plannedId))) {
      // The first request wrote its emails and died before finishing: its answer stands.
      await idempotency.finish(tenantId, key, 200, held.response);
      return held.response;
    }
    if (now() - held.createdAt < idempotencyAbandonedMs) {
      throw new ApiError(409, "idempotency_in_progress", "a request with this Idempotency-Key is still being handled; retry in a moment");
    }
    await idempotency.release(tenantId, key, held.createdAt);
    return null;
  }

  private async prepare(key: MailKey, body: unknown, fieldPrefix: string): Promise<Prepared> {
    const now = this.deps.now();
    let composed: ComposedEmail;
    try {
      composed = await validateSendRequest(body, { now: new Date(now), findTemplate: (id) => this.deps.findTemplate(key.tenantId, id) });
    } catch (error) {
      if (error instanceof ComposeError && fieldPrefix !== "") throw new ComposeError(`${fieldPrefix}${error.field}`, error.code, error.message.slice(error.field.length + 2));
      throw error;
    }
    const domain = await this.deps.domains.sendableFrom(key.tenantId, composed.from.domain);
    if (key.domainId !== null && key.domainId !== domain.id) {
      throw new ApiError(403, "key_domain_mismatch", `${fieldPrefix}from: this key may send only from its own domain, not from ${domain.name}`);
    }
    const recipients = envelopeRecipients(composed);
    const suppressed = await this.deps.suppressions.suppressed(key.tenantId, recipients.map((mailbox) => suppressionKey(mailbox.address)));
    const isSuppressed = (address: string) => suppressed.has(suppressionKey(address));
    if (recipients.every((mailbox) => isSuppressed(mailbox.address))) {
      throw new ApiError(422, "recipients_suppressed", `${fieldPrefix}to: every recipient is on the suppression list (${recipients.map((mailbox) => mailbox.address).join(", ")}); remove them from it (DELETE /v1/suppressions/{address}) to send again`);
    }
    return this.compose(key, composed, domain, isSuppressed, now);
  }

  private async compose(key: MailKey, composed: ComposedEmail, domain: MailDomain, isSuppressed: (address: string) => boolean, now: number): Promise<Prepared> {
    const id = crypto.randomUUID();
    const scheduledAt = composed.scheduledAt === null ? null : Date.parse(composed.scheduledAt);
    const waiting: "queued" | "scheduled" = scheduledAt === null ? "queued" : "scheduled";
    const message = await buildMessage(composed, { emailId: id, messageIdDomain: domain.name, returnPath: returnPathFor(id, domain.name), date: new Date(scheduledAt ?? now) });
    const recipients = envelopeRecipients(composed).map((mailbox) => ({ address: mailbox.address, domain: mailbox.domain, status: isSuppressed(mailbox.address) ? ("suppressed" as const) : waiting }));
    const suppressedAddresses = recipients.filter((recipient) => recipient.status === "suppressed").map((recipient) => recipient.address);
    const fromHeader = composed.from.name === null ? composed.from.address : `${composed.from.name} <${composed.from.address}>`;
    const email: NewEmail = {
      id,
      tenantId: key.tenantId,
      domainId: domain.id,
      keyId: key.id,
      fromAddress: composed.from.address,
      fromHeader,
      to: composed.to.map((mailbox) => mailbox.address),
      cc: composed.cc.map((mailbox) => mailbox.address),
      bcc: composed.bcc.map((mailbox) => mailbox.address),
      replyTo: composed.replyTo.map((mailbox) => mailbox.address),
      subject: composed.subject,
      tags: composed.tags,
      templateId: composed.templateId,
      messageId: message.messageId,
      message: message.raw,
      status: waiting,
      scheduledAt,
      recipients,
    };
    const summary = { ...email, createdAt: now };
    const events: NewMailEvent[] = [
      scheduledAt === null
        ? { tenantId: key.tenantId, type: "email.sent", emailId: id, data: emailEventData(summary) }
        : { tenantId: key.tenantId, type: "email.scheduled", emailId: id, data: emailEventData(summary, { scheduled_at: composed.scheduledAt }) },
      ...suppressedAddresses.map((address): NewMailEvent => ({
        tenantId: key.tenantId,
        type: "email.failed",
        emailId: id,
        recipient: address,
        data: emailEventData(summary, { recipient: address, reason: "suppressed", message: `${address} is on the suppression list: not sent` }),
      })),
    ];
    const answer: SendAnswer = { id, status: waiting, ...(suppressedAddresses.length > 0 ? { suppressed_recipients: suppressedAddresses } : {}) };
    return { email, answer, events };
  }
}

const firstId = (response: unknown): string | null => {
  const value = response as { id?: unknown; data?: { id?: unknown }[] } | null;
  const id = value?.id ?? value?.data?.[0]?.id;
  return typeof id === "string" ? id : null;
};
