// A tenant's stored email templates in the mail service's store, under the alias the tenant
// chose (`welcome-email`), which a send request names as `template.id`. The internal `row_id`
// is the key: a deleted template keeps its row (without its content), and its alias can be
// used again.
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";

/** What a template holds, checked (templates-service.ts) before it is written. */
export interface TemplateContent {
  name: string;
  subject: string | null;
  html: string | null;
  text: string | null;
  /** The placeholders used, in order of first use in subject, html, then text. */
  variables: string[];
}

export interface MailTemplate extends TemplateContent {
  rowId: string;
  tenantId: string;
  id: string;
  /** Raised by every update: an update applies only to the revision it read. */
  revision: number;
  createdAt: number;
  updatedAt: number;
}

/** A template without its html and text, as lists show it. */
export type TemplateSummary = Omit<MailTemplate, "html" | "text">;

interface TemplateRow {
  row_id: string;
  tenant_id: string;
  id: string;
  name: string;
  subject: string | null;
  html?: string | null;
  text?: string | null;
  variables: string;
  revision: number | string;
  created_at: number | string;
  updated_at: number | string;
}

const summary = (row: TemplateRow): TemplateSummary => ({
  rowId: row.row_id,
  tenantId: row.tenant_id,
  id: row.id,
  name: row.name,
  subject: row.subject,
  variables: JSON.parse(row.variables) as string[],
  revision: Number(row.revision),
  createdAt: time(row.created_at)!,
  updatedAt: time(row.updated_at)!,
});

const template = (row: TemplateRow): MailTemplate => ({ ...summary(row), html: row.html ?? null, text: row.text ?? null });

const summaryColumns = "row_id, tenant_id, id, name, subject, variables, revision, created_at, updated_at";

export class TemplateStore {
  constructor(private readonly sql: SQL) {}

  /**
   * Adds the template unless the tenant has a live one with this id or already has
   * `templatesMax` of them (one statement, so concurrent creates cannot pass either check);
   * null when refused.
   */
  async create(input: { rowId: string; tenantId: string; id: string; content: TemplateContent; now: number }, templatesMax: number): Promise<MailTemplate | null> {
    const { content } = input;
    const [row] = await this.sql`
      INSERT INTO mail_templates (row_id, tenant_id, id, name, subject, html, text, variables, revision, created_at, updated_at)
      SELECT CAST(${input.rowId} AS TEXT), CAST(${input.tenantId} AS TEXT), CAST(${input.id} AS TEXT), CAST(${content.name} AS TEXT),
        CAST(${content.subject} AS TEXT), CAST(${content.html} AS TEXT), CAST(${content.text} AS TEXT), CAST(${JSON.stringify(content.variables)} AS TEXT),
        1, CAST(${input.now} AS BIGINT), CAST(${input.now} AS BIGINT)
      WHERE (SELECT COUNT(*) FROM mail_templates WHERE tenant_id = ${input.tenantId} AND deleted_at IS NULL) < ${templatesMax}
      ON CONFLICT (tenant_id, id) WHERE deleted_at IS NULL DO NOTHING
      RETURNING *`;
    return row ? template(row as TemplateRow) : null;
  }

  /** The tenant's live template with this id. */
  async get(tenantId: string, id: string): Promise<MailTemplate | null> {
    const [row] = await this.sql`SELECT * FROM mail_templates WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`;
    return row ? template(row as TemplateRow) : null;
  }

  /** In id order, after the id `after` when given; without html and text, which can weigh megabytes each. */
  async list(tenantId: string, limit: number, after: string | null): Promise<TemplateSummary[]> {
    const rows = await this.sql`
      SELECT ${this.sql.unsafe(summaryColumns)} FROM mail_templates
      WHERE tenant_id = ${tenantId} AND deleted_at IS NULL AND (CAST(${after} AS TEXT) IS NULL OR id > ${after})
      ORDER BY id LIMIT ${limit}`;
    return (rows as TemplateRow[]).map(summary);
  }

  /** Writes `content` if the template is still at `revision` and live; null otherwise. */
  async update(rowId: string, revision: number, content: TemplateContent, now: number): Promise<MailTemplate | null> {
    const [row] = await this.sql`
      UPDATE mail_templates SET name = ${content.name}, subject = ${content.subject}, html = ${content.html}, text = ${content.text},
        variables = ${JSON.stringify(content.variables)}, revision = revision + 1, updated_at = ${now}
      WHERE row_id = ${rowId} AND revision = ${revision} AND deleted_at IS NULL
      RETURNING *`;
    return row ? template(row as TemplateRow) : null;
  }

  /**
   * Deletes the tenant's live template with this id; false when there is none. The row stays
   * (emails name the template they used) but its content goes: a deleted template is never
   * read again, and a tenant that creates and deletes in a loop does not fill the disk.
   */
  async remove(tenantId: string, id: string, now: number): Promise<boolean> {
    const rows = await this.sql`
      UPDATE mail_templates SET subject = NULL, html = NULL, text = NULL, deleted_at = ${now}
      WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL RETURNING row_id`;
    return rows.length === 1;
  }
}
