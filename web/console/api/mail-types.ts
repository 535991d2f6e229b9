// The transactional-mail API's answers as the console reads them (server/mail/dto.ts,
// email-dto.ts, webhook-dto.ts, routes/usage.ts): snake_case, times as RFC 3339 strings.
// Every string in them is someone's input (addresses, subjects, a server's replies): pages
// show them as text.

export const emailStatuses = ["scheduled", "queued", "deferred", "delivered", "partially_delivered", "bounced", "suppressed", "failed", "cancelled"] as const;
export type EmailStatus = (typeof emailStatuses)[number];

export interface MailEmail {
  id: string;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  subject: string;
  tags: { name: string; value: string }[];
  template_id: string | null;
  message_id: string;
  status: EmailStatus;
  size_bytes: number;
  scheduled_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface MailRecipient {
  address: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_answer: { code: number | null; enhanced_code: string | null; text: string | null; mx_host: string | null } | null;
  bounce_class: string | null;
  action: string | null;
  updated_at: string;
}

export interface MailEvent {
  id: string;
  type: string;
  recipient: string | null;
  created_at: string;
  data: Record<string, unknown>;
}

export interface TranscriptEntry {
  at: string;
  from: "client" | "server" | "event";
  text: string;
}

export interface MailAttempt {
  id: string;
  domain: string;
  started_at: string;
  duration_ms: number;
  tls: boolean;
  answered_by: { host: string; address: string; port: number } | null;
  results: { recipient: string; outcome: string; code: number | null; enhanced_code: string | null; text: string | null; mx_host: string | null; reason: string | null }[];
  transcript: { entries: TranscriptEntry[]; omittedEntries: number };
}

export interface MailEmailDetail extends MailEmail {
  recipients: MailRecipient[];
  events: MailEvent[];
  attempts: MailAttempt[];
}

export interface EmailSearch {
  recipient?: string;
  status?: EmailStatus;
  message_id?: string;
  tag?: string;
  created_after?: string;
  created_before?: string;
}

export type RecordStatus = "verified" | "not_found" | "mismatch" | "temporary_error";

export interface DomainRecord {
  record: "DKIM" | "SPF" | "MX" | "RECEIVING_MX" | "DMARC";
  name: string;
  type: string;
  value: string;
  priority: number | null;
  ttl: string;
  required: boolean;
  status: RecordStatus;
  found: string[];
}

export interface MailDomain {
  id: string;
  name: string;
  status: "pending" | "verified" | "failed";
  receiving: boolean;
  dkim_selector: string;
  failure: string | null;
  checked_at: string | null;
  verified_at: string | null;
  created_at: string;
  records: DomainRecord[];
}

export const suppressionReasons = ["hard_bounce", "complaint", "manual"] as const;
export type SuppressionReason = (typeof suppressionReasons)[number];

export interface MailSuppression {
  address: string;
  reason: SuppressionReason;
  email_id: string | null;
  bounce_class: string | null;
  detail: string | null;
  created_at: string;
}

/** The ten event types a webhook endpoint may subscribe to (server/mail/store/events.ts). */
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

export interface MailWebhook {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

export type WebhookDeliveryState = "pending" | "delivered" | "failed";
export const webhookDeliveryStates: readonly WebhookDeliveryState[] = ["pending", "delivered", "failed"];

export interface WebhookAttempt {
  started_at: string;
  duration_ms: number;
  status: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export interface WebhookDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  state: WebhookDeliveryState;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
  attempts: WebhookAttempt[];
}

export interface MailUsage {
  month: string;
  plan: string;
  emails: number;
  included_emails: number;
  limit: number | null;
  resets_at: string;
  log_retention_days: number;
  price: {
    currency: string;
    monthly_minor: number;
    tiers: { first_email: number; last_email: number | null; per_thousand_minor: number; emails: number; amount_minor: number }[];
    total_minor: number;
  };
}

export interface InboundEmail {
  email_id: string;
  created_at: string;
  from: string;
  to: string[];
  subject: string;
  spf: string;
  dkim: string;
  size: number;
  attachments: { filename: string | null; content_type: string; size: number }[];
}
