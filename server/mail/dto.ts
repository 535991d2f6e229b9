// The mail API's answers, in snake_case as Resend's API writes them, times as RFC 3339.
import type { RecordCheck } from "./domains/records.ts";
import type { MailDomain } from "./store/domains.ts";
import type { MailTemplate, TemplateSummary } from "./store/templates.ts";
import type { MailKey, MailTenant } from "./store/tenants.ts";

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const tenantDto = (tenant: MailTenant) => ({ id: tenant.id, name: tenant.name, plan: tenant.plan, created_at: iso(tenant.createdAt) });

export const keyDto = (key: MailKey) => ({
  id: key.id,
  name: key.name,
  permission: key.permission === "full" ? "full_access" : "sending_access",
  domain_id: key.domainId,
  last4: key.last4,
  state: key.revokedAt === null ? "active" : "revoked",
  created_at: iso(key.createdAt),
  revoked_at: iso(key.revokedAt),
});

export const recordDto = (record: RecordCheck) => ({
  record: record.record,
  name: record.name,
  type: record.type,
  value: record.value,
  priority: record.priority,
  ttl: "Auto",
  required: record.required,
  status: record.status,
  found: record.found,
});

export const domainDto = (domain: MailDomain, records: RecordCheck[]) => ({
  id: domain.id,
  name: domain.name,
  status: domain.status,
  receiving: domain.receiving,
  dkim_selector: domain.dkimSelector,
  failure: domain.failure,
  checked_at: iso(domain.checkedAt),
  verified_at: iso(domain.verifiedAt),
  created_at: iso(domain.createdAt),
  records: records.map(recordDto),
});

/** A template in a list: without html and text. */
export const templateSummaryDto = (template: TemplateSummary) => ({
  id: template.id,
  name: template.name,
  subject: template.subject,
  variables: template.variables,
  created_at: iso(template.createdAt),
  updated_at: iso(template.updatedAt),
});

export const templateDto = (template: MailTemplate) => {
  const { variables, created_at, updated_at, ...head } = templateSummaryDto(template);
  return { ...head, html: template.html, text: template.text, variables, created_at, updated_at };
};
