// The rules a findings rule's input follows beyond its schema (docs/findings.md, "Limits"): the
// fields each target kind takes, the metric a `metric` target names, thresholds merged over the
// defaults (or the rule's current ones) and each checked, the daily cap and the destinations.
// Each failure is a 400 `validation` whose message names the field and the limit.
import { and, eq, inArray, isNull } from "drizzle-orm";
import { validation } from "../../http/errors.ts";
import { warningReasons } from "../../ingest/ingestion-warnings.ts";
import type { RuleTarget, RuleTargetKind, Thresholds } from "../../findings/findings-types.ts";
import type { ControlContext } from "../context.ts";
import { findingsDestinations, metrics } from "../db/schema.ts";
import { isUuid } from "../ids.ts";
import {
  anomalyZMax, anomalyZMin, baselineWeeksMax, baselineWeeksMin, dailyCapMax, dailyCapMin, relativeChangeMax, ruleDestinationsMax, targetEventLengthMax, targetKeyLengthMax,
} from "./findings-limits.ts";
import type { ThresholdsInputValue } from "./findings-schemas.ts";

type TargetField = Exclude<keyof RuleTarget, "kind">;

/** The fields each target kind takes (required ones first); `key` of ingestion_warnings is optional. */
const targetFields: Record<RuleTargetKind, { required: TargetField[]; optional: TargetField[] }> = {
  event_volume: { required: ["event"], optional: [] },
  funnel_conversion: { required: ["from_event", "to_event"], optional: [] },
  metric: { required: ["key"], optional: [] },
  ingestion_warnings: { required: [], optional: ["key"] },
};

function checkEventName(field: TargetField, value: string): void {
  if (value.trim() === "" || value.length > targetEventLengthMax) {
    throw validation(`target.${field} must be an event name of 1 to ${targetEventLengthMax} characters, not only white space`);
  }
}

/** The target with only its kind's fields; a metric target's key names an unarchived metric of the project. */
export function checkTarget(ctx: ControlContext, projectId: string, target: RuleTarget): RuleTarget {
  const { required, optional } = targetFields[target.kind];
  const allowed = [...required, ...optional];
  for (const field of ["event", "from_event", "to_event", "key"] as const) {
    if (target[field] !== undefined && !allowed.includes(field)) {
      throw validation(`target.${field} is not a field of ${target.kind} targets (they take ${allowed.length ? allowed.join(", ") : "no other field"})`);
    }
  }
  for (const field of required) {
    if (target[field] === undefined) throw validation(`${target.kind} targets require target.${field}`);
  }
  const checked: RuleTarget = { kind: target.kind };
  if (target.kind === "event_volume") {
    checkEventName("event", target.event!);
    checked.event = target.event!;
  } else if (target.kind === "funnel_conversion") {
    checkEventName("from_event", target.from_event!);
    checkEventName("to_event", target.to_event!);
    Object.assign(checked, { from_event: target.from_event!, to_event: target.to_event! });
  } else if (target.kind === "metric") {
    const key = target.key!;
    const metric = key.length <= targetKeyLengthMax
      ? ctx.db.select({ id: metrics.id }).from(metrics).where(and(eq(metrics.projectId, projectId), eq(metrics.key, key), isNull(metrics.archivedAt))).get()
      : undefined;
    if (!metric) throw validation(`target.key must name a metric of this project that is not archived (${JSON.stringify(key.slice(0, targetKeyLengthMax))} is not one)`);
    checked.key = key;
  } else if (target.key !== undefined) {
    if (!(warningReasons as readonly string[]).includes(target.key)) throw validation(`target.key of ingestion_warnings targets must be one of ${warningReasons.join(", ")}`);
    checked.key = target.key;
  }
  return checked;
}

/** `input`'s fields over `base` (the defaults on create, the rule's thresholds on update), each checked. */
export function checkThresholds(base: Thresholds, input: ThresholdsInputValue | undefined): Thresholds {
  const merged: Thresholds = { ...base, ...input };
  const { absolute_change: absolute, relative_change: relative, anomaly_z: z, baseline_weeks: weeks, min_volume: minVolume } = merged;
  if (absolute !== null && !(absolute > 0)) throw validation("thresholds.absolute_change must be greater than 0, or null");
  if (relative !== null && !(relative > 0 && relative <= relativeChangeMax)) {
    throw validation(`thresholds.relative_change must be greater than 0 and at most ${relativeChangeMax}, or null`);
  }
  if (z !== null && !(z >= anomalyZMin && z <= anomalyZMax)) throw validation(`thresholds.anomaly_z must be ${anomalyZMin} to ${anomalyZMax}, or null`);
  if (!(weeks >= baselineWeeksMin && weeks <= baselineWeeksMax)) throw validation(`thresholds.baseline_weeks must be ${baselineWeeksMin} to ${baselineWeeksMax}`);
  if (!(minVolume >= 0)) throw validation("thresholds.min_volume must be 0 or more");
  if (absolute === null && relative === null && z === null) {
    throw validation("thresholds: at least one of absolute_change, relative_change and anomaly_z must be set");
  }
  return { direction: merged.direction, absolute_change: absolute, relative_change: relative, anomaly_z: z, baseline_weeks: weeks, min_volume: minVolume };
}

export function checkDailyCap(cap: number | null): number | null {
  if (cap !== null && (cap < dailyCapMin || cap > dailyCapMax)) throw validation(`daily_cap must be ${dailyCapMin} to ${dailyCapMax}, or null (the deployment's default)`);
  return cap;
}

/** Up to ruleDestinationsMax distinct destinations of the project (lower-cased ids). */
export function checkDestinationIds(ctx: ControlContext, projectId: string, ids: string[]): string[] {
  if (ids.length > ruleDestinationsMax) throw validation(`destination_ids takes at most ${ruleDestinationsMax} destinations`);
  const wanted = ids.map((id) => id.toLowerCase());
  const repeated = wanted.find((id, index) => wanted.indexOf(id) !== index);
  if (repeated !== undefined) throw validation(`destination_ids lists ${repeated} more than once`);
  const valid = wanted.filter(isUuid);
  const known = new Set(valid.length === 0 ? [] : ctx.db.select({ id: findingsDestinations.id }).from(findingsDestinations)
    .where(and(eq(findingsDestinations.projectId, projectId), inArray(findingsDestinations.id, valid))).all().map(({ id }) => id));
  const unknown = ids.find((id) => !known.has(id.toLowerCase()));
  if (unknown !== undefined) throw validation(`destination_ids: ${JSON.stringify(unknown.slice(0, 64))} is not a findings destination of this project`);
  return wanted;
}
