// Sending domains in the mail service's store: the DKIM key pair made when the domain is
// added, its status (`pending` until its records are found, `verified`, or `failed`), and what
// the last DNS check found for each record.
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";
import type { RecordCheck } from "../domains/records.ts";

export type DomainStatus = "pending" | "verified" | "failed";

export interface MailDomain {
  id: string;
  tenantId: string;
  name: string;
  status: DomainStatus;
  dkimSelector: string;
  dkimPrivateKey: string;
  /** Base64 of the public key's SPKI DER: the DKIM record's `p=`. */
  dkimPublicKey: string;
  receiving: boolean;
  recordChecks: RecordCheck[] | null;
  failure: string | null;
  checkedAt: number | null;
  verifiedAt: number | null;
  createdAt: number;
}

interface DomainRow {
  id: string;
  tenant_id: string;
  name: string;
  status: DomainStatus;
  dkim_selector: string;
  dkim_private_key: string;
  dkim_public_key: string;
  receiving: number | string;
  record_checks: string | null;
  failure: string | null;
  checked_at: number | string | null;
  verified_at: number | string | null;
  created_at: number | string;
}

const domain = (row: DomainRow): MailDomain => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  status: row.status,
  dkimSelector: row.dkim_selector,
  dkimPrivateKey: row.dkim_private_key,
  dkimPublicKey: row.dkim_public_key,
  receiving: Number(row.receiving) === 1,
  recordChecks: row.record_checks === null ? null : (JSON.parse(row.record_checks) as RecordCheck[]),
  failure: row.failure,
  checkedAt: time(row.checked_at),
  verifiedAt: time(row.verified_at),
  createdAt: time(row.created_at)!,
});

export class DomainStore {
  constructor(private readonly sql: SQL) {}

  async create(input: { id: string; tenantId: string; name: string; dkimSelector: string; dkimPrivateKey: string; dkimPublicKey: string; receiving: boolean; now: number }): Promise<MailDomain> {
    const [row] = await this.sql`
      INSERT INTO mail_domains (id, tenant_id, name, status, dkim_selector, dkim_private_key, dkim_public_key, receiving, created_at)
      VALUES (${input.id}, ${input.tenantId}, ${input.name}, 'pending', ${input.dkimSelector}, ${input.dkimPrivateKey}, ${input.dkimPublicKey}, ${input.receiving ? 1 : 0}, ${input.now})
      RETURNING *`;
    return domain(row as DomainRow);
  }

  async ofTenant(tenantId: string, id: string): Promise<MailDomain | null> {
    const [row] = await this.sql`SELECT * FROM mail_domains WHERE id = ${id} AND tenant_id = ${tenantId} AND deleted_at IS NULL`;
    return row ? domain(row as DomainRow) : null;
  }

  /** The tenant's domain with this name (not deleted). */
  async named(tenantId: string, name: string): Promise<MailDomain | null> {
    const [row] = await this.sql`SELECT * FROM mail_domains WHERE tenant_id = ${tenantId} AND name = ${name} AND deleted_at IS NULL`;
    return row ? domain(row as DomainRow) : null;
  }

  /** Whether another tenant has verified this name (a domain sends for one tenant only). */
  async verifiedElsewhere(tenantId: string, name: string): Promise<boolean> {
    const rows = await this.sql`SELECT id FROM mail_domains WHERE name = ${name} AND tenant_id <> ${tenantId} AND status = 'verified' AND deleted_at IS NULL`;
    return rows.length > 0;
  }

  /** Every tenant's domain (not deleted) with one of these names: whom an inbound recipient belongs to. */
  async withNames(names: string[]): Promise<MailDomain[]> {
    const rows = await this.sql`SELECT * FROM mail_domains WHERE name IN ${this.sql(names)} AND deleted_at IS NULL ORDER BY id`;
    return (rows as DomainRow[]).map(domain);
  }

  async list(tenantId: string): Promise<MailDomain[]> {
    const rows = await this.sql`SELECT * FROM mail_domains WHERE tenant_id = ${tenantId} AND deleted_at IS NULL ORDER BY id DESC`;
    return (rows as DomainRow[]).map(domain);
  }

  /** Domains due a DNS check: not checked since `before`. */
  async due(before: number, limit: number): Promise<MailDomain[]> {
    const rows = await this.sql`
      SELECT * FROM mail_domains WHERE deleted_at IS NULL AND (checked_at IS NULL OR checked_at < ${before}) ORDER BY COALESCE(checked_at, 0), id LIMIT ${limit}`;
    return (rows as DomainRow[]).map(domain);
  }

  async recordCheck(id: string, outcome: { status: DomainStatus; recordChecks: RecordCheck[]; failure: string | null; verifiedAt: number | null }, now: number): Promise<MailDomain | null> {
    const [row] = await this.sql`
      UPDATE mail_domains SET status = ${outcome.status}, record_checks = ${JSON.stringify(outcome.recordChecks)}, failure = ${outcome.failure},
        checked_at = ${now}, verified_at = ${outcome.verifiedAt}
      WHERE id = ${id} AND deleted_at IS NULL RETURNING *`;
    return row ? domain(row as DomainRow) : null;
  }

  async setReceiving(tenantId: string, id: string, receiving: boolean): Promise<MailDomain | null> {
    const [row] = await this.sql`UPDATE mail_domains SET receiving = ${receiving ? 1 : 0} WHERE id = ${id} AND tenant_id = ${tenantId} AND deleted_at IS NULL RETURNING *`;
    return row ? domain(row as DomainRow) : null;
  }

  /** Deleted domains keep their row (messages sent from them still name them) but send nothing more. */
  async remove(tenantId: string, id: string, now: number): Promise<boolean> {
    const rows = await this.sql`UPDATE mail_domains SET deleted_at = ${now} WHERE id = ${id} AND tenant_id = ${tenantId} AND deleted_at IS NULL RETURNING id`;
    return rows.length === 1;
  }
}
