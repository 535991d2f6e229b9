// Funnels as SQL with the rules of kinds/funnel.ts. The statement reads:
//   ev         the range's events passing the global filters (ordered and unordered: only
//              those of a step or an exclusion; strict: all, as any event breaks a chain),
//              with a flag per step (m<k>) and exclusion (x<e>) and the breakdown value bv
//   attempts   one row per start with its reached step times (funnel-attempts-sql.ts)
//   chosen     per person the attempt reaching most steps, then the earliest, then the
//              smallest breakdown value
//   grouped    the top `limit` breakdown values by persons get a rank; the rest are "other"
//              (by cohort: each chosen attempt once per cohort of its person, ranked in the
//              order the cohorts are named, and once more for the overall steps)
//   reached    one row per person and reached step, with the seconds from the step before
// and the answer: persons, median and average seconds per step, per rank and overall.
import type { Query } from "../ir/query.ts";
import { stepsOf, type FunnelResult } from "../kinds/funnel.ts";
import { and, breakdownValueSql, conditions, fromEvents, rangeAndFilters, type SqlKinds } from "./expressions.ts";
import { attemptsSql } from "./funnel-attempts-sql.ts";
import { rankedCohortsSql } from "./trends-cohort-sql.ts";
import type { Params } from "./params.ts";

export function funnelSql(query: Query, kinds: SqlKinds, params: Params): string {
  const window = params.add(query.funnel.windowMs);
  const breakdown = query.breakdown;
  const byCohort = breakdown?.type === "cohort";
  const value = breakdown && !byCohort ? breakdownValueSql(breakdown, kinds) : "NULL::VARCHAR";
  // One parameter per event name: a step's flag and the WHERE clause's list name it alike.
  const eventParams = new Map<string, string>();
  const eventIs = (event: string) => {
    if (!eventParams.has(event)) eventParams.set(event, params.add(event));
    return `e.event = ${eventParams.get(event)}`;
  };
  const steps = query.series.map((series) => and([eventIs(series.event!), ...conditions(series.filters, kinds, params)]));
  const exclusions = query.funnel.exclusions.map((exclusion) => eventIs(exclusion.event));
  const flags = [...steps.map((condition, k) => `coalesce(${condition}, FALSE) AS m${k}`), ...exclusions.map((condition, e) => `coalesce(${condition}, FALSE) AS x${e}`)];
  // Every step names its event, so only those events can matter (strict funnels read all: any event breaks a chain).
  const events = query.funnel.order === "strict" ? [] : [`e.event IN (${[...eventParams.values()].join(", ")})`];
  const where = [...rangeAndFilters(query, kinds, params), ...events];
  const attempts = attemptsSql(query, window, params);
  const ctes = [
    `ev AS (\n  SELECT e.person_id AS person, epoch_ms(e.timestamp) AS t, ${value} AS bv, ${flags.join(", ")}\n  FROM ${fromEvents(query)}\n  WHERE ${and(where)}\n)`,
    ...attempts.ctes,
    // arg_min's key orders as the executor's choice: NULL breakdown values after the others.
    `chosen AS (\n  SELECT person, arg_min({bv: bv, times: times}, (-len(times), t0, bv IS NULL, coalesce(bv, ''))) AS best\n  FROM attempts${attempts.dropped === null ? "" : `\n  WHERE NOT (${attempts.dropped})`}\n  GROUP BY person\n)`,
  ];
  if (byCohort) {
    ctes.push([
      "grouped AS (",
      "  SELECT c.rank, c.cohort_id AS bv, ch.best.times FROM chosen ch",
      "  JOIN cohort_members m ON m.person_id = ch.person",
      `  JOIN ${rankedCohortsSql(breakdown.cohortIds, params)} ON c.cohort_id = m.cohort_id`,
      "  UNION ALL SELECT NULL, NULL, best.times FROM chosen",
      ")",
    ].join("\n"));
  } else if (breakdown) {
    ctes.push(
      "ranked AS (SELECT best.bv, row_number() OVER (ORDER BY count(*) DESC, best.bv ASC NULLS LAST) AS rank FROM chosen GROUP BY best.bv)",
      `grouped AS (SELECT CASE WHEN r.rank <= ${params.add(breakdown.limit)} THEN r.rank END AS rank, c.best.bv, c.best.times FROM chosen c JOIN ranked r ON c.best.bv IS NOT DISTINCT FROM r.bv)`,
    );
  } else ctes.push("grouped AS (SELECT NULL::BIGINT AS rank, best.bv, best.times FROM chosen)");
  ctes.push("reached AS (SELECT rank, bv, k, CASE WHEN k > 0 THEN (times[k + 1] - times[k]) / 1000.0 END AS gap FROM (SELECT *, unnest(range(len(times))) AS k FROM grouped))");
  // By cohort, the overall steps are the copy of every attempt without a rank (a person in several cohorts counts once there).
  const [overall, groupBy] = byCohort ? ["(rank IS NULL)::INTEGER", "GROUP BY rank, k"] : ["grouping(rank)", "GROUP BY GROUPING SETS ((rank, k), (k))"];
  return [
    `WITH ${ctes.join(",\n")}`,
    "SELECT rank, min(bv) FILTER (WHERE rank IS NOT NULL) AS breakdown_value, k AS step,",
    "       count(*) AS count, quantile_cont(gap, 0.5) AS median_seconds, avg(gap) AS average_seconds,",
    `       ${overall} AS overall`,
    "FROM reached",
    groupBy,
    "ORDER BY overall DESC, rank NULLS LAST, step",
  ].join("\n");
}

export interface FunnelSqlRow {
  rank: number | null;
  breakdown_value: string | null;
  step: number;
  count: number;
  median_seconds: number | null;
  average_seconds: number | null;
  overall: number;
}

/** The rows of funnelSql as a FunnelResult, for comparing with the executor. */
export function funnelFromSql(query: Query, rows: FunnelSqlRow[]): FunnelResult {
  const build = (group: FunnelSqlRow[]) => {
    const counts = query.series.map((_, k) => Number(group.find((row) => Number(row.step) === k)?.count ?? 0));
    const shaped = stepsOf(query, []).map((step, k) => {
      const row = group.find((candidate) => Number(candidate.step) === k);
      return {
        ...step,
        count: counts[k]!,
        conversion_from_previous: k === 0 || counts[k - 1] === 0 ? null : counts[k]! / counts[k - 1]!,
        conversion_from_first: k === 0 || counts[0] === 0 ? null : counts[k]! / counts[0]!,
        median_seconds: row?.median_seconds ?? null,
        average_seconds: row?.average_seconds ?? null,
      };
    });
    return shaped;
  };
  const overall = rows.filter((row) => Number(row.overall) === 1);
  const result: FunnelResult = { kind: "funnel", order: query.funnel.order, window_seconds: query.funnel.windowMs / 1000, steps: build(overall) };
  if (query.breakdown) {
    const grouped = rows.filter((row) => Number(row.overall) === 0);
    // A cohort breakdown has a row per cohort named, persons or not.
    const cohortIds = query.breakdown.type === "cohort" ? query.breakdown.cohortIds : null;
    const ranks = cohortIds ? cohortIds.map((_, index) => index + 1) : [...new Set(grouped.filter((row) => row.rank !== null).map((row) => Number(row.rank)))].sort((a, b) => a - b);
    result.breakdowns = ranks.map((rank) => {
      const group = grouped.filter((row) => Number(row.rank) === rank);
      return { breakdown_value: cohortIds ? cohortIds[rank - 1]! : group[0]!.breakdown_value, breakdown_other: false, steps: build(group) };
    });
    const other = grouped.filter((row) => row.rank === null);
    if (other.length > 0) result.breakdowns.push({ breakdown_value: null, breakdown_other: true, steps: build(other) });
  }
  return result;
}
