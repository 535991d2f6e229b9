// A tenant's webhook endpoints in the mail service's store: the URL, the event types it
// subscribes to, its signing secret and whether it is enabled. A deleted endpoint keeps its row
// (its deliveries name it) and gets nothing more.
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";
import type { MailEventType } from "./events.ts";

export interface MailWebhook {
  id: string;
  tenantId: string;
  url: string;
  eventTypes: MailEventType[];
  /** `whsec_…`: signs every delivery; the API shows it only when it is made or rotated. */
  secret: string;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

interface WebhookRow {
  id: string;
  tenant_id: string;
  url: string;
  event_types: string;
  secret: string;
  enabled: number | string;
  created_at: number | string;
  updated_at: number | string;
}

const webhook = (row: WebhookRow): MailWebhook => ({
  id: row.id,
  tenantId: row.tenant_id,
  url: row.url,
  eventTypes: JSON.parse(row.event_types) as MailEventType[],
  secret: row.secret,
  enabled: Number(row.enabled) === 1,
  createdAt: time(row.created_at)!,
  updatedAt: time(row.updated_at)!,
});

export class WebhookStore {
  constructor(private readonly sql: SQL) {}

  /** Adds an endpoint unless the tenant has `max` already (one statement: two requests at once cannot both pass the count); null then. */
  async create(input: { id: string; tenantId: string; url: string; eventTypes: MailEventType[]; secret: string; now: number }, max: number): Promise<MailWebhook | null> {
    const [row] = await this.sql`
      INSERT INTO mail_webhooks (id, tenant_id, url, event_types, secret, enabled, created_at, updated_at)
      SELECT ${input.id}, ${input.tenantId}, ${input.url}, ${JSON.stringify(input.eventTypes)}, ${input.secret}, 1, CAST(${input.now} AS BIGINT), CAST(${input.now} AS BIGINT)
      WHERE (SELECT COUNT(*) FROM mail_webhooks WHERE tenant_id = ${input.tenantId} AND deleted_at IS NULL) < ${max}
      RETURNING *`;
    return row ? webhook(row as WebhookRow) : null;
  }

  async ofTenant(tenantId: string, id: string): Promise<MailWebhook | null> {
    const [row] = await this.sql`SELECT * FROM mail_webhooks WHERE id = ${id} AND tenant_id = ${tenantId} AND deleted_at IS NULL`;
    return row ? webhook(row as WebhookRow) : null;
  }

  /** Newest first (ids are time-ordered). */
  async list(tenantId: string, limit: number, after: string | null): Promise<MailWebhook[]> {
    const rows = await this.sql`
      SELECT * FROM mail_webhooks WHERE tenant_id = ${tenantId} AND deleted_at IS NULL AND (CAST(${after} AS TEXT) IS NULL OR id < ${after})
      ORDER BY id DESC LIMIT ${limit}`;
    return (rows as WebhookRow[]).map(webhook);
  }

  /** The enabled endpoints of these tenants: the fan-out's candidates. */
  async enabledOf(tenantIds: string[]): Promise<MailWebhook[]> {
    if (tenantIds.length === 0) return [];
    const rows = await this.sql`SELECT * FROM mail_webhooks WHERE tenant_id IN ${this.sql(tenantIds)} AND enabled = 1 AND deleted_at IS NULL`;
    return (rows as WebhookRow[]).map(webhook);
  }

  /** Endpoints by id, deleted or not (a pass posting their deliveries reads URL and secret). */
  async byIds(ids: string[]): Promise<MailWebhook[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql`SELECT * FROM mail_webhooks WHERE id IN ${this.sql(ids)}`;
    return (rows as WebhookRow[]).map(webhook);
  }

  async update(tenantId: string, id: string, change: { url?: string; eventTypes?: MailEventType[]; enabled?: boolean; secret?: string }, now: number): Promise<MailWebhook | null> {
    const [row] = await this.sql`
      UPDATE mail_webhooks SET
        url = COALESCE(${change.url ?? null}, url),
        event_types = COALESCE(${change.eventTypes ? JSON.stringify(change.eventTypes) : null}, event_types),
        enabled = COALESCE(CAST(${change.enabled === undefined ? null : change.enabled ? 1 : 0} AS INTEGER), enabled),
        secret = COALESCE(${change.secret ?? null}, secret),
        updated_at = ${now}
      WHERE id = ${id} AND tenant_id = ${tenantId} AND deleted_at IS NULL RETURNING *`;
    return row ? webhook(row as WebhookRow) : null;
  }

  async remove(tenantId: string, id: string, now: number): Promise<boolean> {
    const rows = await this.sql`UPDATE mail_webhooks SET deleted_at = ${now}, updated_at = ${now} WHERE id = ${id} AND tenant_id = ${tenantId} AND deleted_at IS NULL RETURNING id`;
    return rows.length === 1;
  }
}
