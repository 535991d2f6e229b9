// Funnels as SQL with the rules of kinds/funnel.ts: every step-0 event (unordered: any step's)
// starts an attempt; ASOF joins find each next step (the earliest later event), exclusions
// (the first exclusion event after from_step) and, for strict funnels, the person's next
// event of any kind (an ASOF join from a NULL time is guarded: DuckDB still matches it);
// each person keeps the attempt reaching most steps, then the earliest,
// then the smallest breakdown value.
import type { Query } from "../ir/query.ts";
import { stepsOf, type FunnelResult } from "../kinds/funnel.ts";
import { and, breakdownValueSql, fromEvents, rangeAndFilters, seriesConditions, type SqlKinds } from "./expressions.ts";
import type { Params } from "./params.ts";

export function funnelSql(query: Query, kinds: SqlKinds, params: Params): string {
  const steps = query.series.length;
  const order = query.funnel.order;
  const window = params.add(query.funnel.windowMs);
  const where = rangeAndFilters(query, kinds, params);
  const breakdown = query.breakdown;
  const value = breakdown ? breakdownValueSql(breakdown, kinds) : "NULL::VARCHAR";
  const matches = query.series.map((series, k) => `coalesce(${and(seriesConditions(series.event, series.filters, kinds, params))}, FALSE) AS m${k}`);
  const exclusions = query.funnel.exclusions.map((exclusion, e) => `coalesce(e.event = ${params.add(exclusion.event)}, FALSE) AS x${e}`);
  const ctes: string[] = [
    `ev AS (\n  SELECT e.person_id AS person, epoch_ms(e.timestamp) AS t, ${value} AS bv, ${[...matches, ...exclusions].join(", ")}\n  FROM ${fromEvents(query)}\n  WHERE ${and(where)}\n)`,
    ...query.series.map((_, k) => `step${k} AS (SELECT DISTINCT person, t FROM ev WHERE m${k})`),
    ...query.funnel.exclusions.map((_, e) => `excluded${e} AS (SELECT DISTINCT person, t FROM ev WHERE x${e})`),
  ];
  let last: string;
  let timesList: string;
  if (order === "unordered") {
    ctes.push(`a AS (SELECT person, t AS s, bv FROM ev WHERE ${query.series.map((_, k) => `m${k}`).join(" OR ")})`);
    last = "a";
    for (let k = 0; k < steps; k++) {
      ctes.push(`f${k} AS (SELECT a.*, CASE WHEN n.t <= a.s + ${window} THEN n.t END AS t${k} FROM ${last} a ASOF LEFT JOIN step${k} n ON a.person = n.person AND a.s <= n.t)`);
      last = `f${k}`;
    }
    timesList = `list_sort(list_filter([${query.series.map((_, k) => `t${k}`).join(", ")}], x -> x IS NOT NULL))`;
  } else {
    ctes.push("a0 AS (SELECT person, t AS s, bv, t AS t0 FROM ev WHERE m0)");
    if (order === "strict") ctes.push("anyev AS (SELECT DISTINCT person, t FROM ev)");
    last = "a0";
    for (let k = 1; k < steps; k++) {
      if (order === "ordered") {
        ctes.push(`a${k} AS (SELECT a.*, CASE WHEN a.t${k - 1} IS NOT NULL AND n.t <= a.s + ${window} THEN n.t END AS t${k} FROM ${last} a ASOF LEFT JOIN step${k} n ON a.person = n.person AND a.t${k - 1} < n.t)`);
      } else {
        ctes.push(
          `next${k} AS (SELECT a.*, CASE WHEN a.t${k - 1} IS NOT NULL THEN n.t END AS nt${k} FROM ${last} a ASOF LEFT JOIN anyev n ON a.person = n.person AND a.t${k - 1} < n.t)`,
          `a${k} AS (SELECT a.*, CASE WHEN a.nt${k} <= a.s + ${window} AND m.t IS NOT NULL THEN a.nt${k} END AS t${k} FROM next${k} a LEFT JOIN step${k} m ON m.person = a.person AND m.t = a.nt${k})`,
        );
      }
      last = `a${k}`;
    }
    query.funnel.exclusions.forEach((exclusion, e) => {
      ctes.push(`d${e} AS (SELECT a.*, x.t AS xt${e} FROM ${last} a ASOF LEFT JOIN excluded${e} x ON a.person = x.person AND a.t${exclusion.fromStep} < x.t)`);
      last = `d${e}`;
    });
    timesList = `list_filter([${query.series.map((_, k) => `t${k}`).join(", ")}], x -> x IS NOT NULL)`;
  }
  const droppedConditions = query.funnel.exclusions.map(
    (exclusion, e) => `(t${exclusion.fromStep} IS NOT NULL AND xt${e} IS NOT NULL AND CASE WHEN t${exclusion.toStep} IS NOT NULL THEN xt${e} < t${exclusion.toStep} ELSE xt${e} <= s + ${window} END)`,
  );
  ctes.push(
    `attempts AS (SELECT person, s, bv, ${timesList} AS times FROM ${last}${droppedConditions.length > 0 ? ` WHERE NOT (${droppedConditions.join(" OR ")})` : ""})`,
    "chosen AS (SELECT person, bv, times, len(times) AS level FROM attempts QUALIFY row_number() OVER (PARTITION BY person ORDER BY len(times) DESC, s ASC, bv ASC NULLS LAST) = 1)",
  );
  if (breakdown) {
    ctes.push(
      "ranked AS (SELECT bv, row_number() OVER (ORDER BY count(*) DESC, bv ASC NULLS LAST) AS rank FROM chosen GROUP BY bv)",
      `grouped AS (SELECT c.*, CASE WHEN r.rank <= ${params.add(breakdown.limit)} THEN r.rank END AS rank FROM chosen c JOIN ranked r ON c.bv IS NOT DISTINCT FROM r.bv)`,
    );
  } else ctes.push("grouped AS (SELECT c.*, NULL::BIGINT AS rank FROM chosen c)");
  const gap = "CASE WHEN level > k AND k > 0 THEN (times[k + 1] - times[k]) / 1000.0 END";
  return [
    `WITH ${ctes.join(",\n")}`,
    "SELECT rank, min(bv) FILTER (WHERE rank IS NOT NULL) AS breakdown_value, k AS step,",
    `       count(*) FILTER (WHERE level > k) AS count, quantile_cont(${gap}, 0.5) AS median_seconds, avg(${gap}) AS average_seconds,`,
    "       grouping(rank) AS overall",
    `FROM grouped, range(${steps}) AS r(k)`,
    "GROUP BY GROUPING SETS ((rank, k), (k))",
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
    const ranks = [...new Set(grouped.filter((row) => row.rank !== null).map((row) => Number(row.rank)))].sort((a, b) => a - b);
    result.breakdowns = ranks.map((rank) => {
      const group = grouped.filter((row) => Number(row.rank) === rank);
      return { breakdown_value: group[0]!.breakdown_value, breakdown_other: false, steps: build(group) };
    });
    const other = grouped.filter((row) => row.rank === null);
    if (other.length > 0) result.breakdowns.push({ breakdown_value: null, breakdown_other: true, steps: build(other) });
  }
  return result;
}
