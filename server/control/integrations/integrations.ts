// Revenue integrations of a project (spec 1, "Integrations"): a provider's webhook URL
// `{ingest_url}/wh/{provider}/{token}` and what the region needs to verify what arrives there.
// The secret is never returned (`has_secret`, `secret_last4`), nor written to the audit log;
// the path token appears only in `webhook_url` (never in the audit log either: for the app
// stores it is the only credential). Every change is pushed to the region (integration-sync.ts).
import { randomBytes } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { notFound } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { integrations } from "../db/schema.ts";
import { newId, requireUuid } from "../ids.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { ingestUrl } from "../services/region-tokens.ts";
import { checkConfig, checkName, checkSecret } from "./integration-config.ts";
import { pushIntegration } from "./integration-sync.ts";
import type { CreateIntegrationInput, UpdateIntegrationInput } from "./integration-schemas.ts";

export type IntegrationRow = typeof integrations.$inferSelect;

/** Random bytes of a path token (256 bits), written base64url (43 characters). */
export const integrationTokenBytes = 32;

export const newIntegrationToken = () => randomBytes(integrationTokenBytes).toString("base64url");

export const webhookUrl = (ctx: ControlContext, region: string, row: Pick<IntegrationRow, "provider" | "token">) =>
  `${ingestUrl(ctx, region)}/wh/${row.provider}/${row.token}`;

export const integrationDto = (ctx: ControlContext, region: string, row: IntegrationRow) => ({
  id: row.id,
  project_id: row.projectId,
  provider: row.provider,
  status: row.status,
  has_secret: row.secret !== null,
  region_synced: row.regionSynced,
  webhook_url: webhookUrl(ctx, region, row),
  config: row.config,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  name: row.name,
  secret_last4: row.secretLast4,
});

/** What the audit log and dry runs show: the DTO without the webhook URL (it holds the token). */
function auditView(row: IntegrationRow) {
  return {
    id: row.id,
    project_id: row.projectId,
    provider: row.provider,
    status: row.status,
    has_secret: row.secret !== null,
    config: row.config,
    name: row.name,
    secret_last4: row.secretLast4,
  };
}

const lastFour = (secret: string | null) => (secret === null ? null : secret.slice(-4));

export function listIntegrations(ctx: ControlContext, access: ProjectAccess) {
  requireScope(access, "projects:read");
  const rows = ctx.db.select().from(integrations).where(eq(integrations.projectId, access.project.id)).orderBy(asc(integrations.createdAt), asc(integrations.id)).all();
  return { integrations: rows.map((row) => integrationDto(ctx, access.project.region, row)) };
}

function integrationOfProject(ctx: ControlContext, access: ProjectAccess, integrationId: string): IntegrationRow {
  const id = requireUuid(integrationId, "integration");
  const row = ctx.db.select().from(integrations).where(and(eq(integrations.id, id), eq(integrations.projectId, access.project.id))).get();
  if (!row) throw notFound("integration");
  return row;
}

export function getIntegration(ctx: ControlContext, access: ProjectAccess, integrationId: string) {
  const row = integrationOfProject(ctx, access, integrationId);
  requireScope(access, "projects:read");
  return integrationDto(ctx, access.project.region, row);
}

export function planCreateIntegration(ctx: ControlContext, access: ProjectAccess, input: CreateIntegrationInput): WritePlan<IntegrationRow> {
  requireScope(access, "projects:write");
  const provider = input.provider;
  const secret = checkSecret(provider, input.secret, null);
  const now = nowIso();
  const row: IntegrationRow = {
    id: newId(),
    projectId: access.project.id,
    provider,
    name: checkName(input.name),
    status: "active",
    token: newIntegrationToken(),
    secret,
    secretLast4: lastFour(secret),
    config: checkConfig(provider, input.config ?? {}),
    regionSynced: false,
    createdAt: now,
    updatedAt: now,
  };
  return {
    action: "integration.create",
    targetType: "integration",
    targetId: row.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: null,
    after: auditView(row),
    apply: () => {
      ctx.db.insert(integrations).values(row).run();
      return row;
    },
  };
}

function changePlan(ctx: ControlContext, access: ProjectAccess, row: IntegrationRow, action: string, after: IntegrationRow): WritePlan<IntegrationRow> {
  return {
    action,
    targetType: "integration",
    targetId: row.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: auditView(row),
    after: auditView(after),
    apply: () => {
      const { id: _id, projectId: _projectId, provider: _provider, createdAt: _createdAt, ...changed } = after;
      ctx.db.update(integrations).set(changed).where(eq(integrations.id, row.id)).run();
      return after;
    },
  };
}

export function planUpdateIntegration(ctx: ControlContext, access: ProjectAccess, integrationId: string, input: UpdateIntegrationInput): WritePlan<IntegrationRow> {
  const row = integrationOfProject(ctx, access, integrationId);
  requireScope(access, "projects:write");
  const secret = checkSecret(row.provider, input.secret, row.secret);
  const after: IntegrationRow = {
    ...row,
    name: input.name === undefined ? row.name : checkName(input.name),
    status: input.status ?? row.status,
    secret,
    secretLast4: lastFour(secret),
    config: input.config === undefined ? row.config : checkConfig(row.provider, input.config),
    regionSynced: false,
    updatedAt: nowIso(),
  };
  return changePlan(ctx, access, row, "integration.update", after);
}

/** A new path token: the old webhook URL stops working as soon as the region has the change. */
export function planRotateIntegrationToken(ctx: ControlContext, access: ProjectAccess, integrationId: string): WritePlan<IntegrationRow> {
  const row = integrationOfProject(ctx, access, integrationId);
  requireScope(access, "projects:write");
  const after: IntegrationRow = { ...row, token: newIntegrationToken(), regionSynced: false, updatedAt: nowIso() };
  return changePlan(ctx, access, row, "integration.rotate_token", after);
}

export function planDeleteIntegration(ctx: ControlContext, access: ProjectAccess, integrationId: string): WritePlan<IntegrationRow> {
  const row = integrationOfProject(ctx, access, integrationId);
  requireScope(access, "projects:write");
  return {
    action: "integration.delete",
    targetType: "integration",
    targetId: row.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: auditView(row),
    after: null,
    apply: () => {
      ctx.db.delete(integrations).where(eq(integrations.id, row.id)).run();
      return row;
    },
  };
}

/** After a committed change: the region gets it, then the answer shows the current `region_synced`. */
export async function syncedIntegrationDto(ctx: ControlContext, access: ProjectAccess, row: IntegrationRow) {
  await pushIntegration(ctx, access.project, row.id);
  const current = ctx.db.select().from(integrations).where(eq(integrations.id, row.id)).get() ?? row;
  return integrationDto(ctx, access.project.region, current);
}
