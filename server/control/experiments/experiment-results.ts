// Experiment results: the region computes the statistics (POST /region/{code}/experiments/stats,
// docs/experiment-results.md) over the experiment's environment with a short-lived
// experiments:read region token; the control plane keeps the answer as ExperimentResultsDto and
// returns it while it is younger than 5 minutes (spec 1, Limits) unless `refresh` is asked.
import { eq } from "drizzle-orm";
import { minuteMs, nowIso } from "../../clock.ts";
import { ApiError, conflict, unavailable } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { experimentResults, flags } from "../db/schema.ts";
import type { ProjectAccess } from "../access.ts";
import { issueRegionToken } from "../services/region-tokens.ts";
import { metricRef, type MetricRow } from "./metrics.ts";
import { experimentMetrics, type ExperimentRow } from "./experiments.ts";

/** Spec 1, Limits: a result younger than this is returned unless refresh is set. */
export const experimentResultsCacheMs = 5 * minuteMs;
/** Time the region may take (its own query time-out is 30 s). */
const statsRequestTimeoutMs = 35_000;

type Role = "primary" | "secondary" | "guardrail";

interface StatsAnswer {
  stats_version: number;
  data_through: string;
  blocked: boolean;
  metrics: Record<string, { guardrail?: Record<string, { status: string }> }>;
}

function metricRoles(ctx: ControlContext, row: ExperimentRow): { metric: MetricRow; role: Role; margin?: number; marginKind?: string }[] {
  const byId = experimentMetrics(ctx, row);
  return [
    ...(row.primaryMetricId === null ? [] : [{ metric: byId.get(row.primaryMetricId)!, role: "primary" as const }]),
    ...row.secondaryMetricIds.map((id) => ({ metric: byId.get(id)!, role: "secondary" as const })),
    ...row.guardrails.map((guardrail) => ({ metric: byId.get(guardrail.metric_id)!, role: "guardrail" as const, margin: guardrail.margin, marginKind: guardrail.margin_kind })),
  ];
}

/** The region's request body for this experiment (docs/experiment-results.md). */
function statsRequest(ctx: ControlContext, row: ExperimentRow) {
  const flag = ctx.db.select({ key: flags.key }).from(flags).where(eq(flags.id, row.flagId)).get()!;
  const total = row.variants.reduce((sum, variant) => sum + variant.rollout_percentage, 0);
  return {
    flag_key: flag.key,
    exposure_event: row.exposureEvent,
    variants: row.variants.map((variant) => variant.key),
    control_variant: row.controlVariant,
    start_at: row.startAt,
    end_at: row.endAt,
    attribution_window_hours: row.attributionWindowHours,
    method: row.method,
    alpha: row.alpha,
    winsor_pct: row.winsorPct,
    cuped: row.cuped,
    expected_split: total > 0 ? Object.fromEntries(row.variants.map((variant) => [variant.key, variant.rollout_percentage])) : null,
    metrics: metricRoles(ctx, row).map(({ metric, role, margin, marginKind }) => ({
      key: metric.key,
      kind: metric.kind,
      event: metric.query.event,
      property: metric.kind === "mean" ? (metric.query.property ?? null) : null,
      role,
      higher_is_better: metric.direction === "increase",
      ...(role === "guardrail" ? { margin, margin_kind: marginKind } : {}),
    })),
  };
}

async function askRegion(ctx: ControlContext, access: ProjectAccess, row: ExperimentRow): Promise<StatsAnswer> {
  const token = await issueRegionToken(ctx, access, { environment: row.environment, scopes: ["experiments:read"] });
  let response: Response;
  try {
    response = await fetch(`${token.region_api_url}/experiments/stats`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token.token}` },
      body: JSON.stringify(statsRequest(ctx, row)),
      signal: AbortSignal.timeout(statsRequestTimeoutMs),
    });
  } catch (error) {
    throw unavailable(`region ${token.region} did not answer: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => null)) as (StatsAnswer & { error?: { code: string; message: string } }) | null;
  if (response.status === 200 && body) return body;
  const message = body?.error?.message ?? `status ${response.status}`;
  if (response.status === 429 || response.status >= 500) throw unavailable(`region ${token.region} could not compute the results: ${message}`);
  throw new ApiError(409, "conflict", `region ${token.region} refused the results request: ${message}`);
}

export type ExperimentResultsDto = ReturnType<typeof resultsDto>;

function resultsDto(ctx: ControlContext, row: ExperimentRow, stats: StatsAnswer, computedAt: string) {
  return {
    experiment_id: row.id,
    analysis: {
      method: row.method, alpha: row.alpha, control_variant: row.controlVariant, variants: row.variants, exposure_event: row.exposureEvent,
      attribution_window_hours: row.attributionWindowHours, start_at: row.startAt, end_at: row.endAt, cuped: row.cuped, winsor_pct: row.winsorPct,
    },
    stats,
    stats_version: stats.stats_version,
    metrics: Object.fromEntries(metricRoles(ctx, row).map(({ metric }) => [metric.key, metricRef(metric)])),
    computed_at: computedAt,
    data_through: stats.data_through,
  };
}

/** The experiment's results: the kept ones when younger than 5 minutes (and not `refresh`), else new ones from the region. */
export async function experimentResultsOf(ctx: ControlContext, access: ProjectAccess, row: ExperimentRow, refresh: boolean): Promise<ExperimentResultsDto> {
  if (row.status === "draft" || row.startAt === null) throw conflict("the experiment has not been launched: no results yet");
  const kept = ctx.db.select().from(experimentResults).where(eq(experimentResults.experimentId, row.id)).get();
  if (kept && !refresh && Date.now() - Date.parse(kept.computedAt) < experimentResultsCacheMs) return kept.body as ExperimentResultsDto;
  const stats = await askRegion(ctx, access, row);
  const dto = resultsDto(ctx, row, stats, nowIso());
  ctx.db.insert(experimentResults).values({ experimentId: row.id, body: dto, computedAt: dto.computed_at })
    .onConflictDoUpdate({ target: experimentResults.experimentId, set: { body: dto, computedAt: dto.computed_at } }).run();
  return dto;
}

/** Guardrail metrics the results say `variant` significantly harms (none to check: no region call). */
export async function harmedGuardrails(ctx: ControlContext, access: ProjectAccess, row: ExperimentRow, variant: string): Promise<string[]> {
  if (row.guardrails.length === 0 || variant === row.controlVariant) return [];
  const results = await experimentResultsOf(ctx, access, row, false);
  return Object.entries(results.stats.metrics)
    .filter(([, metric]) => metric.guardrail?.[variant]?.status === "harmed")
    .map(([key]) => key)
    .sort();
}
