// What the findings tests share: the routes' paths, the control plane's audit rows and the
// region's copy of a project's findings configuration.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { TestService } from "../../helpers/service.ts";

export const destinationsPath = (projectId: string) => `/app/projects/${projectId}/findings/destinations`;
export const rulesPath = (projectId: string) => `/app/projects/${projectId}/findings/rules`;
export const validation = (message: string) => ({ error: { code: "validation", message } });
export const missingScope = (scope: string) => ({ error: { code: "missing_scope", message: `requires scope \`${scope}\`` } });

export const slackUrl = "https://hooks.slack.com/services/T0001/B0002/SecretTokenAbCd";
export const webhookUrl = "https://receiver.example.com/hooks/findings?token=hidden-9876";
export const whsec = `whsec_${Buffer.from("0123456789abcdef01234567").toString("base64")}`;

export function auditRows(service: TestService, targetId: string): { action: string; target_type: string; before: unknown; after: unknown }[] {
  const db = new Database(join(service.dataDir, "control.sqlite"), { readonly: true });
  try {
    const rows = db.query("SELECT action, target_type, before, after FROM audit_log WHERE target_id = ? ORDER BY id").all(targetId) as any[];
    return rows.map((row) => ({ ...row, before: JSON.parse(row.before ?? "null"), after: JSON.parse(row.after ?? "null") }));
  } finally {
    db.close();
  }
}

/** The region's copy (null: the region holds no findings configuration for the project). */
export const regionConfig = (service: TestService, projectId: string, region = "eu") =>
  service.nodes.get(region as never)!.store.findingsConfig.project(projectId);

/** A DestinationDto as the region holds it, with its secrets. */
export const regionDestination = (dto: any, secret: string | null, signingSecret: string | null) => ({
  id: dto.id, kind: dto.kind, name: dto.name, enabled: dto.enabled, min_severity: dto.min_severity, config: dto.config, secret, signing_secret: signingSecret,
});

/** A RuleDto as the region holds it. */
export const regionRule = (dto: any) => ({
  id: dto.id, name: dto.name, cadence: dto.cadence, enabled: dto.enabled, min_severity: dto.min_severity, destination_ids: dto.destination_ids,
  target: dto.target, thresholds: dto.thresholds, daily_cap: dto.daily_cap,
});

/** What the region holds of the project besides destinations, rules and metrics. */
export const regionProject = (service: TestService, project: any) => ({
  projectId: project.id, orgId: project.org_id, dataId: project.data_id, environment: "production", timeZone: project.timezone,
  consoleUrl: `${service.url}/projects/${project.id}`,
});
