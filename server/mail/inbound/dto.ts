// An inbound message as the API and the `email.received` event show it (snake_case, RFC 3339
// times). The event carries the summary, never the bodies, so it stays small; the bodies are in
// GET /v1/inbound/{id} and the message itself at `raw_url`.
import type { InboundMessage, InboundSummary } from "../store/inbound.ts";

export const inboundSummaryDto = (message: InboundSummary, rawUrl: string) => ({
  email_id: message.id,
  created_at: new Date(message.createdAt).toISOString(),
  from: message.fromHeader,
  to: message.to,
  cc: message.cc,
  subject: message.subject,
  message_id: message.messageId,
  envelope_from: message.envelopeFrom,
  envelope_to: message.envelopeTo,
  domain_id: message.domainId,
  attachments: message.attachments.map((attachment) => ({
    filename: attachment.filename,
    content_type: attachment.contentType,
    size: attachment.sizeBytes,
    content_id: attachment.contentId,
  })),
  size: message.sizeBytes,
  spf: message.spf,
  dkim: message.dkim,
  dkim_signatures: message.dkimSignatures,
  raw_url: rawUrl,
});

export const inboundDto = (message: InboundMessage, rawUrl: string) => ({ ...inboundSummaryDto(message, rawUrl), text: message.text, html: message.html });
