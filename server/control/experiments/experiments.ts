// Experiments in the control plane: create, get, list, update and delete (archive). An
// experiment measures a multivariate flag in one environment; its status moves through the
// state machine in experiment-transitions.ts (docs/experiments.md).
import { and, asc, eq, inArray, ne } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { conflict, notFound, validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { experiments, flags, metrics } from "../db/schema.ts";
import { projectEnvironments } from "../dto.ts";
import { newId, requireUuid } from "../ids.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { flagConfigs, type FlagRow } from "../flags/flags.ts";
import { metricRef, type MetricRow } from "./metrics.ts";
import type { ExperimentCreateInput, ExperimentUpdateInput } from "./experiment-schemas.ts";

export type ExperimentRow = typeof experiments.$inferSelect;
export type ExperimentStatus = ExperimentRow["status"];

export const experimentDefaults = {
  alpha: 0.05,
  power: 0.8,
  attributionWindowHours: 14 * 24,
  exposureEvent: "$feature_flag_called",
  method: "frequentist",
  environment: "production",
  controlVariant: "control",
} as const;

/** Statuses in which the experiment's settings may still change. */
const editableStatuses: ReadonlySet<ExperimentStatus> = new Set(["draft", "running", "stopped"]);

/** Every metric the experiment references: primary, secondary, guardrails. */
export const metricIdsOf = (row: ExperimentRow): string[] =>
  [row.primaryMetricId, ...row.secondaryMetricIds, ...row.guardrails.map((guardrail) => guardrail.metric_id)].filter((id): id is string => id !== null);

/** The experiment's metrics by id (archived ones too: an experiment keeps showing what it used). */
export function experimentMetrics(ctx: ControlContext, row: ExperimentRow): Map<string, MetricRow> {
  const ids = metricIdsOf(row);
  return new Map(ids.length === 0 ? [] : ctx.db.select().from(metrics).where(inArray(metrics.id, ids)).all().map((metric) => [metric.id, metric]));
}

export function experimentDto(ctx: ControlContext, row: ExperimentRow) {
  const flag = ctx.db.select({ key: flags.key }).from(flags).where(eq(flags.id, row.flagId)).get();
  const byId = experimentMetrics(ctx, row);
  const ref = (id: string) => metricRef(byId.get(id)!);
  return {
    id: row.id,
    project_id: row.projectId,
    flag_id: row.flagId,
    flag_key: flag?.key ?? null,
    key: row.key,
    name: row.name,
    environment: row.environment,
    status: row.status,
    method: row.method,
    alpha: row.alpha,
    power: row.power,
    attribution_window_hours: row.attributionWindowHours,
    control_variant: row.controlVariant,
    exposure_event: row.exposureEvent,
    guardrails: row.guardrails.map((guardrail) => {
      const { key, kind, name } = ref(guardrail.metric_id);
      return { metric_id: guardrail.metric_id, margin: guardrail.margin, margin_kind: guardrail.margin_kind, key, kind, name };
    }),
    secondary_metrics: row.secondaryMetricIds.map(ref),
    variants: row.variants,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    created_by: row.createdBy,
    cuped: row.cuped,
    decision: row.decision,
    end_at: row.endAt,
    hypothesis: row.hypothesis,
    mde: row.mde,
    primary_metric: row.primaryMetricId === null ? null : ref(row.primaryMetricId),
    shipped_variant: row.shippedVariant,
    start_at: row.startAt,
    winsor_pct: row.winsorPct,
  };
}

export type ExperimentDto = ReturnType<typeof experimentDto>;

export function experimentOfProject(ctx: ControlContext, access: ProjectAccess, experimentId: string): ExperimentRow {
  const id = requireUuid(experimentId, "experiment");
  const row = ctx.db.select().from(experiments).where(and(eq(experiments.id, id), eq(experiments.projectId, access.project.id))).get();
  if (!row) throw notFound("experiment");
  return row;
}

export function listExperiments(ctx: ControlContext, access: ProjectAccess) {
  requireScope(access, "experiments:read");
  const rows = ctx.db.select().from(experiments).where(eq(experiments.projectId, access.project.id)).orderBy(asc(experiments.createdAt)).all();
  return { experiments: rows.map((row) => experimentDto(ctx, row)) };
}

export function getExperiment(ctx: ControlContext, access: ProjectAccess, experimentId: string) {
  requireScope(access, "experiments:read");
  return experimentDto(ctx, experimentOfProject(ctx, access, experimentId));
}

/** The flag's variants in the experiment's environment, as the experiment records them. */
export function flagVariants(ctx: ControlContext, flag: FlagRow, environment: string): { key: string; rollout_percentage: number }[] {
  const config = flagConfigs(ctx, flag.id).find((row) => row.environment === environment);
  return ((config?.variants ?? []) as { key: string; rollout_percentage: number }[]).map(({ key, rollout_percentage }) => ({ key, rollout_percentage }));
}

function liveMetricIds(ctx: ControlContext, projectId: string, ids: string[]): Map<string, MetricRow> {
  const rows = ids.length === 0 ? [] : ctx.db.select().from(metrics).where(and(eq(metrics.projectId, projectId), inArray(metrics.id, ids))).all();
  const found = new Map(rows.filter((row) => row.archivedAt === null).map((row) => [row.id, row]));
  const missing = ids.find((id) => !found.has(id));
  if (missing) throw validation(`metric ${missing} is not a live metric of this project`);
  return found;
}

/** Checks the metric references and the control variant of a would-be experiment row. */
function checkSettings(ctx: ControlContext, row: ExperimentRow, flag: FlagRow): void {
  const secondary = row.secondaryMetricIds;
  if (new Set(secondary).size !== secondary.length) throw validation("secondary_metric_ids must not repeat a metric");
  if (row.primaryMetricId !== null && secondary.includes(row.primaryMetricId)) throw validation("the primary metric cannot also be a secondary metric");
  const guardrailIds = row.guardrails.map((guardrail) => guardrail.metric_id);
  if (new Set(guardrailIds).size !== guardrailIds.length) throw validation("guardrails must not repeat a metric");
  // Results are keyed by metric: one role per metric.
  const measured = new Set([row.primaryMetricId, ...secondary]);
  if (guardrailIds.some((id) => measured.has(id))) throw validation("a guardrail metric cannot also be the primary or a secondary metric");
  liveMetricIds(ctx, row.projectId, [...(row.primaryMetricId === null ? [] : [row.primaryMetricId]), ...secondary, ...guardrailIds]);
  const variants = flagVariants(ctx, flag, row.environment).map((variant) => variant.key);
  if (!variants.includes(row.controlVariant)) throw validation(`control_variant "${row.controlVariant}" is not a variant of flag ${flag.key} (${variants.join(", ")})`);
}

const settingsOf = (input: ExperimentUpdateInput): Partial<ExperimentRow> => {
  const changes: Partial<ExperimentRow> = {};
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.alpha !== undefined) changes.alpha = input.alpha;
  if (input.power !== undefined) changes.power = input.power;
  if (input.mde !== undefined) changes.mde = input.mde;
  if (input.method !== undefined) changes.method = input.method;
  if (input.attribution_window_hours !== undefined) changes.attributionWindowHours = input.attribution_window_hours;
  if (input.control_variant !== undefined) changes.controlVariant = input.control_variant;
  if (input.cuped !== undefined) changes.cuped = input.cuped;
  if (input.winsor_pct !== undefined) changes.winsorPct = input.winsor_pct;
  if (input.hypothesis !== undefined) changes.hypothesis = input.hypothesis;
  if (input.primary_metric_id !== undefined) changes.primaryMetricId = input.primary_metric_id;
  if (input.secondary_metric_ids !== undefined) changes.secondaryMetricIds = input.secondary_metric_ids;
  if (input.guardrails !== undefined) {
    changes.guardrails = input.guardrails.map((guardrail) => ({ metric_id: guardrail.metric_id, margin: guardrail.margin, margin_kind: guardrail.margin_kind ?? "relative" }));
  }
  return changes;
};

export function planCreateExperiment(ctx: ControlContext, access: ProjectAccess, input: ExperimentCreateInput): WritePlan<ExperimentDto> {
  requireScope(access, "experiments:write");
  const flag = ctx.db.select().from(flags).where(and(eq(flags.id, requireUuid(input.flag_id, "flag")), eq(flags.projectId, access.project.id))).get();
  if (!flag || flag.archivedAt !== null) throw validation("flag_id is not a live flag of this project");
  if (flag.kind !== "multivariate") throw validation(`flag ${flag.key} is boolean: an experiment needs a multivariate flag (a control and at least one test variant)`);
  const environment = input.environment ?? experimentDefaults.environment;
  if (!projectEnvironments(ctx, access.project.id).some((env) => env.name === environment)) throw validation(`environment "${environment}" is not one of the project's environments`);
  const taken = ctx.db.select({ key: experiments.key }).from(experiments)
    .where(and(eq(experiments.projectId, access.project.id), eq(experiments.key, input.key))).get();
  if (taken) throw conflict(`an experiment with key "${input.key}" already exists`);
  const measuring = ctx.db.select({ key: experiments.key }).from(experiments)
    .where(and(eq(experiments.flagId, flag.id), ne(experiments.status, "archived"))).get();
  if (measuring) throw conflict(`flag ${flag.key} is already measured by experiment "${measuring.key}"`);
  const now = nowIso();
  const row: ExperimentRow = {
    id: newId(), projectId: access.project.id, flagId: flag.id, key: input.key, name: input.name.trim(), environment, status: "draft",
    method: experimentDefaults.method, alpha: experimentDefaults.alpha, power: experimentDefaults.power, mde: null,
    attributionWindowHours: experimentDefaults.attributionWindowHours, controlVariant: experimentDefaults.controlVariant,
    exposureEvent: input.exposure_event ?? experimentDefaults.exposureEvent, primaryMetricId: null, secondaryMetricIds: [], guardrails: [],
    variants: flagVariants(ctx, flag, environment), cuped: null, winsorPct: null, hypothesis: null, decision: null, shippedVariant: null,
    startAt: null, endAt: null, createdBy: access.principal.user.id, createdAt: now, updatedAt: now,
    ...settingsOf(input),
  };
  if (input.control_variant === undefined && !row.variants.some((variant) => variant.key === row.controlVariant)) row.controlVariant = row.variants[0]!.key;
  checkSettings(ctx, row, flag);
  return {
    action: "experiment.create", targetType: "experiment", targetId: row.id, orgId: access.org.id, projectId: access.project.id,
    before: null, after: experimentDto(ctx, row),
    apply: () => {
      ctx.db.insert(experiments).values(row).run();
      ctx.db.update(flags).set({ experimentId: row.id }).where(eq(flags.id, flag.id)).run();
      return experimentDto(ctx, row);
    },
  };
}

export function planUpdateExperiment(ctx: ControlContext, access: ProjectAccess, experimentId: string, input: ExperimentUpdateInput): WritePlan<ExperimentDto> {
  requireScope(access, "experiments:write");
  const row = experimentOfProject(ctx, access, experimentId);
  if (!editableStatuses.has(row.status)) throw conflict(`a ${row.status} experiment cannot be changed`);
  const updated: ExperimentRow = { ...row, ...settingsOf(input), updatedAt: nowIso() };
  checkSettings(ctx, updated, ctx.db.select().from(flags).where(eq(flags.id, row.flagId)).get()!);
  return {
    action: "experiment.update", targetType: "experiment", targetId: row.id, orgId: access.org.id, projectId: access.project.id,
    before: experimentDto(ctx, row), after: experimentDto(ctx, updated),
    apply: () => {
      ctx.db.update(experiments).set(updated).where(eq(experiments.id, row.id)).run();
      return experimentDto(ctx, updated);
    },
  };
}
