// Addresses a tenant does not send to: added automatically by a hard bounce that means the
// address is gone (unknown mailbox, disabled mailbox, domain not found) or by a complaint, and
// by hand through the API. Checked when an email is accepted and again before each delivery.
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";

export type SuppressionReason = "hard_bounce" | "complaint" | "manual";

export interface Suppression {
  tenantId: string;
  address: string;
  reason: SuppressionReason;
  emailId: string | null;
  bounceClass: string | null;
  detail: string | null;
  createdAt: number;
}

const suppression = (row: Record<string, unknown>): Suppression => ({
  tenantId: String(row.tenant_id),
  address: String(row.address),
  reason: row.reason as SuppressionReason,
  emailId: (row.email_id as string | null) ?? null,
  bounceClass: (row.bounce_class as string | null) ?? null,
  detail: (row.detail as string | null) ?? null,
  createdAt: time(row.created_at as number)!,
});

export class SuppressionStore {
  constructor(private readonly sql: SQL) {}

  /** Adds the address unless it is already suppressed (the first reason stays); true when added. */
  async add(entry: Omit<Suppression, "createdAt">, now: number): Promise<boolean> {
    const rows = await this.sql`
      INSERT INTO mail_suppressions (tenant_id, address, reason, email_id, bounce_class, detail, created_at)
      VALUES (${entry.tenantId}, ${entry.address}, ${entry.reason}, ${entry.emailId}, ${entry.bounceClass}, ${entry.detail}, ${now})
      ON CONFLICT (tenant_id, address) DO NOTHING RETURNING address`;
    return rows.length > 0;
  }

  async get(tenantId: string, address: string): Promise<Suppression | null> {
    const [row] = await this.sql`SELECT * FROM mail_suppressions WHERE tenant_id = ${tenantId} AND address = ${address}`;
    return row ? suppression(row) : null;
  }

  async remove(tenantId: string, address: string): Promise<boolean> {
    const rows = await this.sql`DELETE FROM mail_suppressions WHERE tenant_id = ${tenantId} AND address = ${address} RETURNING address`;
    return rows.length > 0;
  }

  /** Which of `addresses` the tenant suppresses. */
  async suppressed(tenantId: string, addresses: string[]): Promise<Set<string>> {
    if (addresses.length === 0) return new Set();
    const rows = await this.sql`SELECT address FROM mail_suppressions WHERE tenant_id = ${tenantId} AND address IN ${this.sql(addresses)}`;
    return new Set((rows as { address: string }[]).map((row) => row.address));
  }

  /** Newest first, `limit` after the address `after` (the cursor), optionally one reason. */
  async list(tenantId: string, reason: SuppressionReason | null, limit: number, after: string | null): Promise<Suppression[]> {
    const rows = await this.sql`
      SELECT * FROM mail_suppressions WHERE tenant_id = ${tenantId}
        AND (CAST(${reason} AS TEXT) IS NULL OR reason = ${reason})
        AND (CAST(${after} AS TEXT) IS NULL OR (created_at, address) < (SELECT created_at, address FROM mail_suppressions WHERE tenant_id = ${tenantId} AND address = ${after}))
      ORDER BY created_at DESC, address DESC LIMIT ${limit}`;
    return (rows as Record<string, unknown>[]).map(suppression);
  }
}
