// Tenants and their API keys in the mail service's store. A key is shown once at creation;
// only its hash is kept, with the last four characters for recognition.
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";
import type { PlanName } from "../plans/plans.ts";

export type KeyPermission = "full" | "sending";

export interface MailTenant {
  id: string;
  name: string;
  plan: PlanName;
  createdAt: number;
}

export interface MailKey {
  id: string;
  tenantId: string;
  name: string;
  permission: KeyPermission;
  /** A sending key restricted to one domain sends only from it. */
  domainId: string | null;
  last4: string;
  createdAt: number;
  revokedAt: number | null;
}

interface KeyRow {
  id: string;
  tenant_id: string;
  name: string;
  permission: KeyPermission;
  domain_id: string | null;
  secret_last4: string;
  created_at: number | string;
  revoked_at: number | string | null;
}

const key = (row: KeyRow): MailKey => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  permission: row.permission,
  domainId: row.domain_id,
  last4: row.secret_last4,
  createdAt: time(row.created_at)!,
  revokedAt: time(row.revoked_at),
});

const tenant = (row: { id: string; name: string; plan: PlanName; created_at: number | string }): MailTenant => ({ id: row.id, name: row.name, plan: row.plan, createdAt: time(row.created_at)! });

const keyColumns = "id, tenant_id, name, permission, domain_id, secret_last4, created_at, revoked_at";

export class TenantStore {
  constructor(private readonly sql: SQL) {}

  async create(id: string, name: string, now: number): Promise<MailTenant> {
    const [row] = await this.sql`INSERT INTO mail_tenants (id, name, created_at) VALUES (${id}, ${name}, ${now}) RETURNING *`;
    return tenant(row);
  }

  async setPlan(id: string, plan: PlanName): Promise<MailTenant | null> {
    const [row] = await this.sql`UPDATE mail_tenants SET plan = ${plan} WHERE id = ${id} RETURNING *`;
    return row ? tenant(row) : null;
  }

  async get(id: string): Promise<MailTenant | null> {
    const [row] = await this.sql`SELECT * FROM mail_tenants WHERE id = ${id}`;
    return row ? tenant(row) : null;
  }

  /** Newest first, after the tenant `after` (its id) when given. */
  async list(limit: number, after: string | null): Promise<MailTenant[]> {
    const rows = await this.sql`SELECT * FROM mail_tenants WHERE (CAST(${after} AS TEXT) IS NULL OR id < ${after}) ORDER BY id DESC LIMIT ${limit}`;
    return rows.map(tenant);
  }

  async addKey(input: Omit<MailKey, "revokedAt" | "createdAt"> & { secretHash: string; now: number }): Promise<MailKey> {
    const [row] = await this.sql`
      INSERT INTO mail_keys (id, tenant_id, name, permission, domain_id, secret_hash, secret_last4, created_at)
      VALUES (${input.id}, ${input.tenantId}, ${input.name}, ${input.permission}, ${input.domainId}, ${input.secretHash}, ${input.last4}, ${input.now})
      RETURNING ${this.sql.unsafe(keyColumns)}`;
    return key(row as KeyRow);
  }

  async keys(tenantId: string): Promise<MailKey[]> {
    const rows = await this.sql`SELECT ${this.sql.unsafe(keyColumns)} FROM mail_keys WHERE tenant_id = ${tenantId} ORDER BY id DESC`;
    return (rows as KeyRow[]).map(key);
  }

  async revokeKey(tenantId: string, id: string, now: number): Promise<MailKey | null> {
    const [row] = await this.sql`
      UPDATE mail_keys SET revoked_at = COALESCE(revoked_at, ${now}) WHERE id = ${id} AND tenant_id = ${tenantId}
      RETURNING ${this.sql.unsafe(keyColumns)}`;
    return row ? key(row as KeyRow) : null;
  }

  /** The live key with this hash. */
  async activeKey(secretHash: string): Promise<MailKey | null> {
    const [row] = await this.sql`SELECT ${this.sql.unsafe(keyColumns)} FROM mail_keys WHERE secret_hash = ${secretHash} AND revoked_at IS NULL`;
    return row ? key(row as KeyRow) : null;
  }
}
