// A rule target's value in the judged period and in each baseline period, computed through the
// engine over the project's stored events (docs/findings-evaluation.md, "Values"):
// - event_volume: the trends count (`total`, weighted by sampling) of `event`, one query with the
//   cadence's interval over the whole baseline range, read at the periods' buckets;
// - funnel_conversion: a 2-step funnel from_event -> to_event per period (its window the
//   period's length, events after the period not read), in percentage points of the persons
//   who did from_event; its volume is those persons;
// - metric: a proportion metric is the number of persons who did its event in the period; a
//   mean metric the sum of its property (or its events) per person who did its event (periods
//   without such a person have no value); one trends query like event_volume;
// - ingestion_warnings: the warnings counted per quarter of an hour (of reason `key`, or all).
import type { FunnelResult } from "../../../engine/kinds/funnel.ts";
import type { TrendsResult } from "../../../engine/kinds/trends.ts";
import type { RegionFindingsMetric, RegionFindingsProject, RuleTarget } from "../findings-types.ts";
import { intervalOf, isJudgeable, periodLabel, type Period } from "./periods.ts";
import type { ProjectQueryRunner } from "./project-queries.ts";
import { conversionScaleFloor, countScaleFloor, meanScaleFloor, median, type Observation } from "./statistics.ts";

/** A rule names something the project's configuration lacks (a metric key, an event): the rule cannot be judged. */
export class TargetError extends Error {}

/** Per-slot ingestion warning counts (server/ingest/ingestion-warnings.ts). */
export interface WarningCounter {
  countBetween(projectId: string, environment: string, reason: string | null, fromMs: number, toMs: number): number;
}

export interface TargetSources {
  queries: ProjectQueryRunner;
  warnings: WarningCounter;
}

/** One period's value (null: no value, e.g. a conversion nobody entered) and the size min_volume is compared with. */
interface PeriodValue {
  value: number | null;
  volume: number;
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();
const required = (value: string | undefined, name: string, kind: string): string => {
  if (value === undefined || value === "") throw new TargetError(`a ${kind} target needs ${name}`);
  return value;
};

/** The trends rows' values at each period's bucket (one query over the whole range). */
async function trendsValues(sources: TargetSources, project: RegionFindingsProject, periods: Period[], series: Record<string, unknown>[], now: number): Promise<number[][]> {
  const document = {
    ir_version: 1,
    date_range: { from: iso(periods[0]!.start), to: iso(periods.at(-1)!.end) },
    insight: { kind: "trends", interval: intervalOf(periods[0]!.cadence), series },
  };
  const result = (await sources.queries.run(project, document, now)) as TrendsResult;
  const indexOf = new Map(result.buckets.map((label, index) => [label, index]));
  return periods.map((period) => {
    const index = indexOf.get(periodLabel(period));
    return result.rows.map((row) => (index === undefined ? 0 : (row.values[index] ?? 0)));
  });
}

function metricOf(project: RegionFindingsProject, key: string): RegionFindingsMetric {
  const metric = project.metrics.find((candidate) => candidate.key === key);
  if (!metric) throw new TargetError(`the project has no metric ${JSON.stringify(key)}`);
  return metric;
}

async function metricValues(sources: TargetSources, project: RegionFindingsProject, target: RuleTarget, periods: Period[], now: number): Promise<PeriodValue[]> {
  const metric = metricOf(project, required(target.key, "key", "metric"));
  const event = metric.query.event;
  if (typeof event !== "string" || event === "") throw new TargetError(`metric ${JSON.stringify(metric.key)} names no event`);
  const persons = { event, math: "unique_persons" };
  if (metric.kind === "proportion") {
    return (await trendsValues(sources, project, periods, [persons], now)).map(([count]) => ({ value: count!, volume: count! }));
  }
  const property = typeof metric.query.property === "string" && metric.query.property !== "" ? metric.query.property : null;
  const numerator = property === null ? { event, math: "total" } : { event, math: "sum", property };
  return (await trendsValues(sources, project, periods, [numerator, persons], now)).map(([sum, units]) => ({ value: units! > 0 ? sum! / units! : null, volume: units! }));
}

async function funnelValue(sources: TargetSources, project: RegionFindingsProject, fromEvent: string, toEvent: string, period: Period, now: number): Promise<PeriodValue> {
  const hours = Math.max(1, Math.ceil((period.end - period.start) / 3_600_000));
  const document = {
    ir_version: 1,
    date_range: { from: iso(period.start), to: iso(period.end) },
    insight: { kind: "funnel", series: [{ event: fromEvent }, { event: toEvent }], funnel_window: { value: hours, unit: "hour" } },
  };
  const result = (await sources.queries.run(project, document, now)) as FunnelResult;
  const entered = result.steps[0]?.count ?? 0;
  const converted = result.steps[1]?.count ?? 0;
  return { value: entered > 0 ? (100 * converted) / entered : null, volume: entered };
}

async function periodValues(sources: TargetSources, project: RegionFindingsProject, target: RuleTarget, periods: Period[], now: number): Promise<PeriodValue[]> {
  switch (target.kind) {
    case "event_volume": {
      const event = required(target.event, "event", "event_volume");
      return (await trendsValues(sources, project, periods, [{ event, math: "total" }], now)).map(([count]) => ({ value: count!, volume: count! }));
    }
    case "funnel_conversion": {
      const fromEvent = required(target.from_event, "from_event", "funnel_conversion");
      const toEvent = required(target.to_event, "to_event", "funnel_conversion");
      const values: PeriodValue[] = [];
      // One after another: they share the project's concurrency gate with people's queries.
      for (const period of periods) values.push(await funnelValue(sources, project, fromEvent, toEvent, period, now));
      return values;
    }
    case "metric":
      return metricValues(sources, project, target, periods, now);
    case "ingestion_warnings":
      return periods.map((period) => {
        const count = sources.warnings.countBetween(project.projectId, project.environment, target.key ?? null, period.start, period.end);
        return { value: count, volume: count };
      });
  }
}

function scaleFloorOf(target: RuleTarget, project: RegionFindingsProject, baseline: number, baselineVolume: number): number {
  if (target.kind === "funnel_conversion") return conversionScaleFloor(baseline, baselineVolume);
  if (target.kind === "metric" && metricOf(project, target.key!).kind === "mean") return meanScaleFloor(baseline);
  return countScaleFloor(baseline);
}

/** The judged period's observation, or null when it has no value (nothing entered the funnel, no person for a mean) or no baseline period has one. */
export async function observe(sources: TargetSources, project: RegionFindingsProject, target: RuleTarget, period: Period, baselines: Period[], now: number): Promise<Observation | null> {
  // A local hour a DST change skips or repeats is not a baseline period (periods.ts isJudgeable).
  const history = baselines.filter(isJudgeable);
  const values = await periodValues(sources, project, target, [...history, period], now);
  const current = values.at(-1)!;
  const past = values.slice(0, -1).filter((value): value is { value: number; volume: number } => value.value !== null);
  if (current.value === null || past.length === 0) return null;
  const baseline = median(past.map((value) => value.value));
  const baselineVolume = median(past.map((value) => value.volume));
  return {
    value: current.value,
    history: past.map((value) => value.value),
    volume: current.volume,
    baselineVolume,
    scaleFloor: scaleFloorOf(target, project, baseline, baselineVolume),
  };
}
