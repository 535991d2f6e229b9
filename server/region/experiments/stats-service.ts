// Runs POST /experiments/stats for one region (docs/experiment-results.md): reads a snapshot of
// the token's partition (files plus rows not sealed yet, as POST /query does) through the
// shared column cache, finds the exposed units, computes their per-unit metric values and
// hands them to engine/stats. Like POST /query it holds one of the project's concurrent-query
// slots and stops at the 30 s time-out. There is no result cache: the control plane keeps
// the answer (5 minutes) itself.
import { snapshotChunks, type ChunkRef, type ChunkStore } from "../../../engine/chunk-store.ts";
import { sampleRatioMismatch, statsVersion, type SampleRatioCheck } from "../../../engine/stats/index.ts";
import { queryTimeoutMs, tooManyConcurrentQueries, type QueryGate } from "../query-service.ts";
import type { RegionClaims } from "../region-auth.ts";
import type { RegionNode } from "../region-node.ts";
import { readExposures, type Units } from "./exposures.ts";
import { analyseMetric, type MetricStats } from "./metric-analysis.ts";
import { SnapshotReader } from "./snapshot-reader.ts";
import type { StatsInput } from "./stats-request.ts";
import { metricPasses, readUnitValues, type ValueWindows } from "./unit-values.ts";

export interface ExperimentStats {
  stats_version: number;
  computed_at: string;
  /** Data is complete up to here: end_at, or the time of the request when the experiment runs on. */
  data_through: string;
  method: StatsInput["method"];
  alpha: number;
  exposures: { units_per_variant: Record<string, number>; multiple_exposures: number; total: number };
  /** Null when fewer than two variants have a positive expected share. */
  srm: (SampleRatioCheck & { variants: string[] }) | null;
  metrics: Record<string, MetricStats>;
  /** A guardrail metric is harmed by some treatment: shipping it should be refused. */
  blocked: boolean;
}

/** Each variant's values, in unit order, from values over all units. */
function byVariant(values: Float64Array, units: Units): Float64Array[] {
  const arms = units.perVariant.map((count) => new Float64Array(count));
  const filled = new Array<number>(arms.length).fill(0);
  for (let unit = 0; unit < units.count; unit++) {
    const variant = units.variants[unit]!;
    arms[variant]![filled[variant]!++] = values[unit]!;
  }
  return arms;
}

/**
 * The chi-square test over the variants with a positive expected share (all of them without a
 * split): a variant configured at 0 % has no expected count to test against; its units, if
 * any, still show in `exposures`.
 */
function sampleRatio(input: StatsInput, units: Units): ExperimentStats["srm"] {
  const tested = input.variants.flatMap((name, variant) => (input.weights === null || input.weights[variant]! > 0 ? [variant] : []));
  if (tested.length < 2) return null;
  const check = sampleRatioMismatch(
    tested.map((variant) => units.perVariant[variant]!),
    input.weights === null ? undefined : tested.map((variant) => input.weights![variant]!),
  );
  return { variants: tested.map((variant) => input.variants[variant]!), ...check };
}

export class ExperimentStatsService {
  constructor(
    private readonly node: RegionNode,
    private readonly columns: ChunkStore,
    private readonly gate: QueryGate,
    private readonly timeoutMs = queryTimeoutMs,
  ) {}

  async run(claims: RegionClaims, input: StatsInput): Promise<ExperimentStats> {
    const now = Date.now();
    const end = Math.min(now, input.endAt ?? now);
    const release = this.gate.tryAcquire(claims.projectId);
    if (!release) throw tooManyConcurrentQueries();
    let chunks: ChunkRef[] = [];
    try {
      chunks = snapshotChunks(await this.node.events.snapshot(claims.dataId, claims.environment), this.node.dataDir);
      const canonical = this.node.store.directory.canonicalIndexes(claims.projectId);
      const reader = new SnapshotReader(this.columns, chunks, canonical, now + this.timeoutMs, this.timeoutMs);
      const units = await readExposures(reader, { event: input.exposureEvent, flagKey: input.flagKey, variants: input.variants, from: input.startAt, to: end });
      const windows: ValueWindows = { windowMs: input.windowMs, end, prePeriodDays: input.prePeriodDays };
      const metrics: Record<string, MetricStats> = {};
      for (const pass of metricPasses(input.metrics, units.count, windows)) {
        const values = await readUnitValues(reader, units, pass, windows);
        pass.forEach((metric, index) => {
          const { values: unitValues, covariates } = values[index]!;
          metrics[metric.key] = analyseMetric(metric, byVariant(unitValues, units), covariates && byVariant(covariates, units), input);
        });
      }
      return {
        stats_version: statsVersion,
        computed_at: new Date(now).toISOString(),
        data_through: new Date(end).toISOString(),
        method: input.method,
        alpha: input.alpha,
        exposures: {
          units_per_variant: Object.fromEntries(input.variants.map((name, variant) => [name, units.perVariant[variant]!])),
          multiple_exposures: units.multipleExposures,
          total: units.count,
        },
        srm: sampleRatio(input, units),
        metrics,
        blocked: Object.values(metrics).some((metric) => Object.values(metric.guardrail ?? {}).some((check) => check?.harmed === true)),
      };
    } finally {
      this.columns.release(chunks);
      release();
    }
  }
}
