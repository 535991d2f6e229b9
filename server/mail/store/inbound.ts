// Inbound mail in the mail service's store: one row per message and tenant, written once. Lists
// read the parsed fields only; the bodies and the raw message are read one message at a time.
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";

export interface InboundAttachment {
  filename: string | null;
  contentType: string;
  sizeBytes: number;
  contentId: string | null;
}

export interface DkimSignatureResult {
  domain: string;
  selector: string | null;
  result: string;
}

export interface InboundSummary {
  id: string;
  tenantId: string;
  domainId: string;
  envelopeFrom: string;
  /** This tenant's envelope recipients only. */
  envelopeTo: string[];
  messageId: string | null;
  /** The From header as one line (display name and address). */
  fromHeader: string;
  /** The From header's first address, lower case. */
  fromAddress: string | null;
  to: string[];
  cc: string[];
  subject: string;
  attachments: InboundAttachment[];
  sizeBytes: number;
  spf: string;
  dkim: string;
  dkimSignatures: DkimSignatureResult[];
  createdAt: number;
}

export interface InboundMessage extends InboundSummary {
  text: string | null;
  html: string | null;
}

export type NewInboundMessage = InboundMessage & { raw: Buffer };

export interface InboundFilter {
  /** An envelope recipient (case-insensitive). */
  to?: string;
  /** The From header's address (case-insensitive). */
  from?: string;
  /** Received at or after (epoch ms). */
  after?: number;
  /** Received before (epoch ms). */
  before?: number;
}

interface InboundRow {
  id: string;
  tenant_id: string;
  domain_id: string;
  envelope_from: string;
  envelope_to: string;
  message_id: string | null;
  from_header: string;
  from_address: string | null;
  to_addresses: string;
  cc_addresses: string;
  subject: string;
  text_body?: string | null;
  html_body?: string | null;
  attachments: string;
  size_bytes: number | string;
  spf: string;
  dkim: string;
  dkim_signatures: string;
  created_at: number | string;
}

const summary = (row: InboundRow): InboundSummary => ({
  id: row.id,
  tenantId: row.tenant_id,
  domainId: row.domain_id,
  envelopeFrom: row.envelope_from,
  envelopeTo: JSON.parse(row.envelope_to) as string[],
  messageId: row.message_id,
  fromHeader: row.from_header,
  fromAddress: row.from_address,
  to: JSON.parse(row.to_addresses) as string[],
  cc: JSON.parse(row.cc_addresses) as string[],
  subject: row.subject,
  attachments: JSON.parse(row.attachments) as InboundAttachment[],
  sizeBytes: Number(row.size_bytes),
  spf: row.spf,
  dkim: row.dkim,
  dkimSignatures: JSON.parse(row.dkim_signatures) as DkimSignatureResult[],
  createdAt: time(row.created_at)!,
});

const message = (row: InboundRow): InboundMessage => ({ ...summary(row), text: row.text_body ?? null, html: row.html_body ?? null });

/** A LIKE pattern matching `value` as one JSON string element of a column, with LIKE's wildcards escaped. */
const jsonElementPattern = (value: string) => `%${JSON.stringify(value.toLowerCase()).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class InboundStore {
  constructor(private readonly sql: SQL) {}

  async insert(input: NewInboundMessage): Promise<void> {
    const row = {
      id: input.id,
      tenant_id: input.tenantId,
      domain_id: input.domainId,
      envelope_from: input.envelopeFrom,
      envelope_to: JSON.stringify(input.envelopeTo),
      message_id: input.messageId,
      from_header: input.fromHeader,
      from_address: input.fromAddress,
      to_addresses: JSON.stringify(input.to),
      cc_addresses: JSON.stringify(input.cc),
      subject: input.subject,
      text_body: input.text,
      html_body: input.html,
      attachments: JSON.stringify(input.attachments),
      raw: input.raw.toString("latin1"),
      size_bytes: input.sizeBytes,
      spf: input.spf,
      dkim: input.dkim,
      dkim_signatures: JSON.stringify(input.dkimSignatures),
      created_at: input.createdAt,
    };
    await this.sql`INSERT INTO mail_inbound ${this.sql(row)}`;
  }

  async get(tenantId: string, id: string): Promise<InboundMessage | null> {
    const [row] = await this.sql`
      SELECT id, tenant_id, domain_id, envelope_from, envelope_to, message_id, from_header, from_address, to_addresses, cc_addresses, subject,
        text_body, html_body, attachments, size_bytes, spf, dkim, dkim_signatures, created_at
      FROM mail_inbound WHERE id = ${id} AND tenant_id = ${tenantId}`;
    return row ? message(row as InboundRow) : null;
  }

  /** The message's bytes as they arrived. */
  async raw(tenantId: string, id: string): Promise<Buffer | null> {
    const [row] = await this.sql`SELECT raw FROM mail_inbound WHERE id = ${id} AND tenant_id = ${tenantId}`;
    return row ? Buffer.from((row as { raw: string }).raw, "latin1") : null;
  }

  /** Newest first (ids grow with time), `after` an id of the previous page. */
  async list(tenantId: string, filter: InboundFilter, limit: number, after: string | null): Promise<InboundSummary[]> {
    const to = filter.to === undefined ? null : jsonElementPattern(filter.to);
    const from = filter.from?.toLowerCase() ?? null;
    const since = filter.after ?? null;
    const until = filter.before ?? null;
    const rows = await this.sql`
      SELECT id, tenant_id, domain_id, envelope_from, envelope_to, message_id, from_header, from_address, to_addresses, cc_addresses, subject,
        attachments, size_bytes, spf, dkim, dkim_signatures, created_at
      FROM mail_inbound WHERE tenant_id = ${tenantId}
      AND (CAST(${to} AS TEXT) IS NULL OR LOWER(envelope_to) LIKE ${to} ESCAPE '\\')
      AND (CAST(${from} AS TEXT) IS NULL OR from_address = ${from})
      AND (CAST(${since} AS BIGINT) IS NULL OR created_at >= ${since})
      AND (CAST(${until} AS BIGINT) IS NULL OR created_at < ${until})
      AND (CAST(${after} AS TEXT) IS NULL OR id < ${after})
      ORDER BY id DESC LIMIT ${limit}`;
    return (rows as InboundRow[]).map(summary);
  }
}
