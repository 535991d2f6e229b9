// The mail API's answers about emails, their recipients, hops and attempts, and suppressions,
// in snake_case with RFC 3339 times like the rest of the API (server/mail/dto.ts).
import type { StoredAttempt } from "./store/attempts.ts";
import type { StoredEmail, StoredRecipient } from "./store/emails.ts";
import type { MailEvent } from "./store/events.ts";
import type { Suppression } from "./store/suppressions.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const emailDto = (email: StoredEmail) => ({
  id: email.id,
  from: email.fromHeader,
  to: email.to,
  cc: email.cc,
  bcc: email.bcc,
  reply_to: email.replyTo,
  subject: email.subject,
  tags: email.tags,
  template_id: email.templateId,
  message_id: email.messageId,
  status: email.status,
  size_bytes: email.messageBytes,
  scheduled_at: iso(email.scheduledAt),
  created_at: iso(email.createdAt),
  updated_at: iso(email.updatedAt),
});

export const recipientDto = (recipient: StoredRecipient) => ({
  address: recipient.address,
  status: recipient.status,
  attempts: recipient.attempts,
  next_attempt_at: iso(recipient.nextAttemptAt),
  last_answer:
    recipient.code === null && recipient.replyText === null
      ? null
      : { code: recipient.code, enhanced_code: recipient.enhancedCode, text: recipient.replyText, mx_host: recipient.mxHost },
  bounce_class: recipient.bounceClass,
  action: recipient.action,
  updated_at: iso(recipient.updatedAt),
});

export const eventDto = (event: MailEvent) => ({ id: event.id, type: event.type, recipient: event.recipient, created_at: iso(event.createdAt), data: event.data });

export const attemptDto = (attempt: StoredAttempt) => ({
  id: attempt.id,
  domain: attempt.domain,
  started_at: iso(attempt.startedAt),
  duration_ms: attempt.durationMs,
  tls: attempt.tls,
  answered_by: attempt.answeredBy === null ? null : { host: attempt.answeredBy.hostName, address: attempt.answeredBy.address, port: attempt.answeredBy.port },
  results: attempt.results.map((result) => ({
    recipient: result.recipient,
    outcome: result.outcome,
    code: result.code,
    enhanced_code: result.enhancedCode,
    text: result.text,
    mx_host: result.mxHost,
    reason: result.reason,
  })),
  transcript: attempt.transcript,
});

export const suppressionDto = (entry: Suppression) => ({
  address: entry.address,
  reason: entry.reason,
  email_id: entry.emailId,
  bounce_class: entry.bounceClass,
  detail: entry.detail,
  created_at: iso(entry.createdAt),
});
