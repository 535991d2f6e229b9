// The gateway's answers, in the spec's camelCase (`webhookSecret`, `lastError`), times as
// RFC 3339 strings.
import type { AuditEntry } from "./store/audit.ts";
import type { GatewayKey, GatewayProject } from "./store/projects.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const projectDto = (project: GatewayProject) => ({
  id: project.id,
  name: project.name,
  webhookUrl: project.webhookUrl,
  state: project.suspendedAt === null ? "active" : "suspended",
  suspendedAt: iso(project.suspendedAt),
  createdAt: iso(project.createdAt),
  updatedAt: iso(project.updatedAt),
});

export const keyDto = (key: GatewayKey) => ({
  id: key.id,
  projectId: key.projectId,
  name: key.name,
  last4: key.last4,
  state: key.revokedAt === null ? "active" : "revoked",
  createdAt: iso(key.createdAt),
  revokedAt: iso(key.revokedAt),
});

export const auditDto = (entry: AuditEntry) => ({
  id: entry.id,
  projectId: entry.projectId,
  actor: entry.actor,
  action: entry.action,
  target: entry.target,
  detail: entry.detail,
  at: iso(entry.at),
});
