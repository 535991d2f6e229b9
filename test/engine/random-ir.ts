// Random valid Query IR documents over the dataset of dataset.ts (seeded): every math value,
// every operator on event properties, person properties and fixed columns, cohort filters,
// breakdowns of each type (cohorts too), every interval, ranges across the DST change.
import { filterableColumns, mathValues, operators } from "../../engine/ir/schema.ts";
import { cohortIds, eventNames, pick } from "./dataset.ts";

type Random = () => number;

const eventProperties = ["price", "plan", "flag", "browser", "mixed", "missing_everywhere", "$current_url", "amount", "currency"];
const personProperties = ["plan", "age", "score", "never_set"];
const sampleValues: Record<string, unknown[]> = {
  price: [10, 50.5, 99.99, "50", 0],
  plan: ["free", "pro", "Enterprise", "PRO", 1],
  flag: [true, false, "true"],
  browser: ["Chrome", "chrome", "Safari"],
  mixed: [7, "7", 12, "x", 3.5],
  missing_everywhere: ["a", 1],
  $current_url: ["https://example.com/pricing", "docs"],
  amount: [0, 100, -20],
  currency: ["EUR", "usd"],
  age: [30, 18, "30"],
  score: [5, "5", "high", 50],
  never_set: ["a"],
  distinct_id: ["user-1", "user-2"],
  session_id: ["s-1-0", "s-2-1"],
  lib_name: ["web", "node"],
  geo_country: ["FR", "US", "fr"],
  is_suspect: [true, false],
  event: ["purchase", "clicked"],
};
const regexes = ["^Ch", "o", "\\d", "^(free|pro)$", "E"];
const fixedColumns = ["distinct_id", "session_id", "lib_name", "geo_country", "is_suspect", "event"] as const;

/** A cohort id as a document may spell it (letter case does not matter). */
const cohortIdIn = (random: Random) => {
  const cohortId = pick(random, cohortIds);
  return random() < 0.2 ? cohortId.toUpperCase() : cohortId;
};

const randomCohortFilter = (random: Random) => ({ type: "cohort", cohort_id: cohortIdIn(random), operator: pick(random, ["in", "not_in"]) });

function randomCohortBreakdown(random: Random): Record<string, unknown> {
  const chosen = cohortIds.filter(() => random() < 0.6);
  // Rows follow the order the cohorts are named in, whatever it is.
  const named = random() < 0.5 ? chosen.reverse() : chosen;
  return { type: "cohort", cohort_ids: named.length > 0 ? named : [cohortIdIn(random)] };
}

/** Documents of `generate` with a cohort filter added to the global filters and, most of the time, a cohort breakdown. */
export function withCohorts(generate: (random: Random) => Record<string, unknown>): (random: Random) => Record<string, unknown> {
  return (random) => {
    const document = generate(random);
    const insight = document.insight as Record<string, unknown>;
    if (random() < 0.7) insight.breakdown = randomCohortBreakdown(random);
    return { ...document, filters: [...(document.filters as unknown[]), ...(random() < 0.6 ? [randomCohortFilter(random)] : [])] };
  };
}

function randomFilter(random: Random): Record<string, unknown> {
  if (random() < 0.15) return randomCohortFilter(random);
  const type = pick(random, ["event", "event", "person", "column"] as const);
  const key = type === "event" ? pick(random, eventProperties) : type === "person" ? pick(random, personProperties) : pick(random, fixedColumns);
  if (type === "column" && !(filterableColumns as readonly string[]).includes(key)) throw new Error(key);
  const operator = pick(random, operators);
  const values = sampleValues[key] ?? ["a"];
  const filter: Record<string, unknown> = { type, key, operator };
  if (operator === "in" || operator === "not_in") filter.value = values.filter(() => random() < 0.6).concat([values[0]!]);
  else if (["gt", "gte", "lt", "lte"].includes(operator)) filter.value = pick(random, [0, 10, 30, 50.5, 7, -5]);
  else if (operator === "regex" || operator === "not_regex") filter.value = pick(random, regexes);
  else if (operator === "contains" || operator === "not_contains") filter.value = pick(random, ["o", "E", "pri", "1", "tr"]);
  else if (operator !== "is_set" && operator !== "is_not_set") filter.value = pick(random, values);
  return filter;
}

const filters = (random: Random, max: number) => Array.from({ length: Math.floor(random() * (max + 1)) }, () => randomFilter(random));

/** Date ranges inside and around the dataset (2026-10-20 .. 2026-10-30, DST ends 2026-10-25 in Europe). */
function randomRange(random: Random, interval: string): { from: string; to: string } {
  if (interval === "hour") {
    const start = pick(random, ["2026-10-24T20:00:00Z", "2026-10-25T00:00:00+02:00", "2026-10-22T06:30:00"]);
    return { from: start, to: pick(random, ["2026-10-25T12:00:00Z", "2026-10-26"]) };
  }
  const from = pick(random, ["2026-10-19", "2026-10-21", "2026-10-24T13:00:00Z", "2026-10-25"]);
  const to = pick(random, ["2026-10-25", "2026-10-27T08:00:00+01:00", "2026-10-31", "2026-11-03"]);
  return { from, to };
}

function randomBreakdown(random: Random, limitMax: number): Record<string, unknown> {
  if (random() < 0.2) return randomCohortBreakdown(random);
  const type = pick(random, ["event", "person", "column", "group"] as const);
  const property = type === "event" ? pick(random, eventProperties) : type === "person" ? pick(random, personProperties) : pick(random, fixedColumns);
  return { type, ...(type === "group" ? { group_type_index: 0 } : { property }), limit: 1 + Math.floor(random() * limitMax) };
}

export function randomTrendsIr(random: Random): Record<string, unknown> {
  const interval = pick(random, ["hour", "day", "day", "week", "month"]);
  const series = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
    const math = pick(random, mathValues);
    const spec: Record<string, unknown> = { event: random() < 0.15 ? null : pick(random, eventNames), math };
    if (["sum", "avg", "min", "max", "p50", "p90", "p99"].includes(math)) spec.property = pick(random, ["price", "mixed", "amount", "plan"]);
    if (math === "unique_groups") spec.group_type_index = 0;
    if (random() < 0.5) spec.filters = filters(random, 2);
    return spec;
  });
  const insight: Record<string, unknown> = { kind: "trends", interval, series };
  if (random() < 0.5) insight.breakdown = randomBreakdown(random, 5);
  return { ir_version: 1, date_range: randomRange(random, interval), filters: filters(random, 2), insight };
}

export function randomFunnelIr(random: Random): Record<string, unknown> {
  const steps = 2 + Math.floor(random() * 4);
  const order = pick(random, ["ordered", "ordered", "strict", "unordered"]);
  const series = Array.from({ length: steps }, () => {
    const spec: Record<string, unknown> = { event: pick(random, eventNames) };
    if (random() < 0.3) spec.filters = filters(random, 1);
    return spec;
  });
  const insight: Record<string, unknown> = { kind: "funnel", series, funnel_order: order };
  if (random() < 0.7) insight.funnel_window = { value: 1 + Math.floor(random() * 3), unit: pick(random, ["hour", "day", "day", "week"]) };
  if (order !== "unordered" && random() < 0.4) {
    const fromStep = Math.floor(random() * (steps - 1));
    insight.exclusions = [{ event: pick(random, eventNames), from_step: fromStep, to_step: fromStep + 1 + Math.floor(random() * (steps - 1 - fromStep)) }];
  }
  if (random() < 0.4) insight.breakdown = randomBreakdown(random, 4);
  return { ir_version: 1, date_range: randomRange(random, "day"), filters: filters(random, 1), insight };
}

export function randomStickinessIr(random: Random): Record<string, unknown> {
  const interval = pick(random, ["hour", "day", "day", "week"]);
  const series = [{ event: pick(random, eventNames), ...(random() < 0.4 ? { filters: filters(random, 1) } : {}) }];
  const insight: Record<string, unknown> = { kind: "stickiness", interval, series };
  if (random() < 0.5) insight.cumulative = random() < 0.5;
  return { ir_version: 1, date_range: randomRange(random, interval), filters: filters(random, 1), insight };
}

export function randomRetentionIr(random: Random): Record<string, unknown> {
  const interval = pick(random, ["hour", "day", "day", "week"]);
  const series = Array.from({ length: 1 + Math.floor(random() * 2) }, () => ({
    event: pick(random, eventNames),
    ...(random() < 0.3 ? { filters: filters(random, 1) } : {}),
  }));
  const insight: Record<string, unknown> = { kind: "retention", interval, series };
  if (random() < 0.6) insight.periods = 1 + Math.floor(random() * 10);
  if (random() < 0.5) insight.retention_type = pick(random, ["recurring", "first_time"]);
  return { ir_version: 1, date_range: randomRange(random, interval), filters: random() < 0.5 ? filters(random, 1) : [], insight };
}

export function randomLifecycleIr(random: Random): Record<string, unknown> {
  const interval = pick(random, ["hour", "day", "day", "week", "month"]);
  const series = [{ event: random() < 0.2 ? null : pick(random, eventNames), ...(random() < 0.3 ? { filters: filters(random, 1) } : {}) }];
  return { ir_version: 1, date_range: randomRange(random, interval), filters: filters(random, 1), insight: { kind: "lifecycle", interval, series } };
}

export function randomRevenueIr(random: Random): Record<string, unknown> {
  const interval = pick(random, ["hour", "day", "day", "week", "month"]);
  const series = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
    const spec: Record<string, unknown> = { event: random() < 0.15 ? null : pick(random, eventNames) };
    if (random() < 0.3) spec.property = pick(random, ["amount", "price", "mixed"]);
    if (random() < 0.2) spec.currency_property = pick(random, ["currency", "browser", "mixed"]);
    if (random() < 0.3) spec.refund = true;
    if (random() < 0.3) spec.filters = filters(random, 1);
    return spec;
  });
  return { ir_version: 1, date_range: randomRange(random, interval), filters: filters(random, 1), insight: { kind: "revenue", interval, series } };
}

const pathValues = ["/", "/pricing", "/docs", "/blog/a", "purchase", "clicked", "signed_up", "$pageview", "/nowhere"];

export function randomPathsIr(random: Random): Record<string, unknown> {
  const insight: Record<string, unknown> = { kind: "paths" };
  if (random() < 0.4) insight.series = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({ event: pick(random, eventNames), ...(random() < 0.3 ? { filters: filters(random, 1) } : {}) }));
  if (random() < 0.5) insight.depth = 2 + Math.floor(random() * 5);
  if (random() < 0.5) insight.edges = 1 + Math.floor(random() * 30);
  if (random() < 0.3) insight.start_point = pick(random, pathValues);
  if (random() < 0.3) insight.end_point = pick(random, pathValues);
  if (random() < 0.3) insight.exclude_events = [pick(random, pathValues)];
  return { ir_version: 1, date_range: randomRange(random, "day"), filters: filters(random, 1), insight };
}
