// Emails counted per tenant per month (UTC, `YYYY-MM`). A reservation is one statement that
// adds to the month's count only while the plan's cap allows, so concurrent sends (even from
// several processes on PostgreSQL) can never pass it together.
import type { SQL } from "bun";
import { count } from "../../sql-store/values.ts";
import { planNames, plans } from "../plans/plans.ts";

/** Emails of a month no plan refuses: the cap of the plans without one. */
const uncappedEmails = Number.MAX_SAFE_INTEGER;

/** The tenant's monthly cap as SQL over `mail_tenants.plan`, written from the plan table (constants only). */
const capOfPlan = planNames.map((name) => `WHEN '${name}' THEN ${plans[name].monthlyEmailsLimit ?? uncappedEmails}`).join(" ");
const capExpression = `CASE plan ${capOfPlan} ELSE 0 END`;

export class UsageStore {
  constructor(private readonly sql: SQL) {}

  /** Adds `emails` to the month's count if the tenant's plan allows; the new count, or null when refused (or no such tenant). */
  async reserve(tenantId: string, month: string, emails: number): Promise<number | null> {
    const [row] = await this.sql`
      INSERT INTO mail_usage (tenant_id, month, emails)
      SELECT id, CAST(${month} AS TEXT), CAST(${emails} AS BIGINT) FROM mail_tenants WHERE id = ${tenantId} AND CAST(${emails} AS BIGINT) <= ${this.sql.unsafe(capExpression)}
      ON CONFLICT (tenant_id, month) DO UPDATE SET emails = mail_usage.emails + excluded.emails
      WHERE mail_usage.emails + excluded.emails <= (SELECT ${this.sql.unsafe(capExpression)} FROM mail_tenants WHERE id = excluded.tenant_id)
      RETURNING emails`;
    return row ? count(row.emails) : null;
  }

  /** Takes `emails` back from the month's count (never below zero). */
  async release(tenantId: string, month: string, emails: number): Promise<void> {
    await this.sql`
      UPDATE mail_usage SET emails = CASE WHEN emails > ${emails} THEN emails - ${emails} ELSE 0 END
      WHERE tenant_id = ${tenantId} AND month = ${month}`;
  }

  async emails(tenantId: string, month: string): Promise<number> {
    const [row] = await this.sql`SELECT emails FROM mail_usage WHERE tenant_id = ${tenantId} AND month = ${month}`;
    return row ? count(row.emails) : 0;
  }
}
