// The `data` of an email's webhook events and history entries: what identifies the email
// (its id, Message-ID, sender, recipients, subject, tags) and what the hop adds.
import type { StoredEmail } from "../store/emails.ts";

export type EmailSummary = Pick<StoredEmail, "id" | "messageId" | "fromHeader" | "to" | "cc" | "subject" | "tags" | "createdAt">;

export const emailEventData = (email: EmailSummary, hop: Record<string, unknown> = {}) => ({
  email_id: email.id,
  message_id: email.messageId,
  from: email.fromHeader,
  to: email.to,
  cc: email.cc,
  subject: email.subject,
  tags: Object.fromEntries(email.tags.map((tag) => [tag.name, tag.value])),
  created_at: new Date(email.createdAt).toISOString(),
  ...hop,
});
