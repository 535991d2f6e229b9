// Hand-written ClickHouse SQL for the bench cases, run by chdb (chdb-baseline.ts) over the
// same Parquet parts: ClickHouse's own idioms where it has them (toDate / toRelativeDayNum /
// toRelativeWeekNum in the project's zone, DST included; uniqExact; quantileExactInclusive,
// the same interpolation as DuckDB's quantile_cont and the executor's; groupUniqArray and
// array functions per person; joinGetOrNull on Join tables for merged persons, plans and
// creation times). Rows come out in the compiled SQL's shapes, like duckdb-hand.ts's.
//
// Left out, with the reason:
// - funnels: windowFunnel gives each person's level only, not the chosen attempt's step
//   times, and the answer has median and average conversion times per step;
// - paths: ClickHouse has no function for paths; the plain SQL is DuckDB's (session splits,
//   repeats collapsed), which says nothing about ClickHouse's own strengths.
import { BucketMap } from "../../engine/buckets.ts";
import type { Query } from "../../engine/ir/query.ts";

/** The Join tables chdb-baseline.ts creates. */
export const chdbTables = { overrides: "bench_overrides", plans: "bench_plans", created: "bench_created" } as const;

const text = (value: string) => `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
const instant = (ms: number) => `fromUnixTimestamp64Milli(toInt64(${ms}), 'UTC')`;
const person = `coalesce(joinGetOrNull('${chdbTables.overrides}', 'person_id', assumeNotNull(person_index)), assumeNotNull(person_index))`;

/** What a case's SQL is built from: the validated query and the table expression of the parts. */
export interface ChdbSqlInput {
  query: Query;
  parts: string;
}

const range = (query: Query, from = query.from) => `timestamp >= ${instant(from)} AND timestamp < ${instant(query.to)}`;
const zone = (query: Query) => text(query.timeZone);
const eventOf = (query: Query) => text(query.series[0]!.event!);

function trendsTotalByEventProperty({ query, parts }: ChdbSqlInput): string {
  return `WITH daily AS (
  SELECT toDate(timestamp, ${zone(query)}) AS day, \`p_${query.breakdown!.property!}\` AS breakdown, count() AS events, sum(1 / sample_rate) AS weight
  FROM ${parts}
  WHERE event = ${eventOf(query)} AND ${range(query)}
  GROUP BY day, breakdown
), ranked AS (
  SELECT breakdown, row_number() OVER (ORDER BY sum(events) DESC, breakdown ASC NULLS LAST) AS rank FROM daily GROUP BY breakdown
)
SELECT 0 AS series, toString(d.day) AS bucket, r.rank AS rank, r.breakdown AS breakdown_value, sum(d.weight) AS value
FROM daily d JOIN ranked r ON isNotDistinctFrom(d.breakdown, r.breakdown)
WHERE r.rank <= ${query.breakdown!.limit}
GROUP BY GROUPING SETS ((d.day, r.rank, r.breakdown), (r.rank, r.breakdown))`;
}

function trendsUniquePersonsByPlan({ query, parts }: ChdbSqlInput): string {
  return `WITH planned AS (
  SELECT day, person, events, joinGetOrNull('${chdbTables.plans}', 'plan', person) AS plan FROM (
    SELECT toDate(timestamp, ${zone(query)}) AS day, ${person} AS person, count() AS events
    FROM ${parts}
    WHERE event = ${eventOf(query)} AND ${range(query)}
    GROUP BY day, person
  )
), ranked AS (
  SELECT plan, row_number() OVER (ORDER BY sum(events) DESC, plan ASC NULLS LAST) AS rank FROM planned GROUP BY plan
)
SELECT 0 AS series, toString(p.day) AS bucket, r.rank AS rank, r.plan AS breakdown_value, uniqExact(p.person) AS value
FROM planned p JOIN ranked r ON isNotDistinctFrom(p.plan, r.plan)
WHERE r.rank <= ${query.breakdown!.limit}
GROUP BY GROUPING SETS ((p.day, r.rank, r.plan), (r.rank, r.plan))`;
}

function trendsP90({ query, parts }: ChdbSqlInput): string {
  return `SELECT 0 AS series, toString(day) AS bucket, NULL AS rank, NULL AS breakdown_value, quantileExactInclusive(0.9)(\`p_${query.series[0]!.property!}\`) AS value
FROM (SELECT toDate(timestamp, ${zone(query)}) AS day, \`p_${query.series[0]!.property!}\` FROM ${parts} WHERE ${range(query)})
GROUP BY GROUPING SETS ((day), ())`;
}

/** Recurring weekly retention: each person's distinct weeks, each a cohort with the later weeks as returns. */
function retention({ query, parts }: ChdbSqlInput): string {
  const firstWeek = `toRelativeWeekNum(${instant(query.from)}, ${zone(query)})`;
  return `WITH weeks AS (
  SELECT ${person} AS person, groupUniqArray(toRelativeWeekNum(timestamp, ${zone(query)}) - ${firstWeek}) AS weeks
  FROM ${parts}
  WHERE event = ${eventOf(query)} AND ${range(query)}
  GROUP BY person
)
SELECT cohort, period, count() AS persons FROM (
  SELECT cohort, arrayJoin(arrayMap(r -> r - cohort, arrayFilter(r -> r >= cohort AND r < cohort + ${query.retention.periods}, weeks))) AS period
  FROM weeks ARRAY JOIN weeks AS cohort
) GROUP BY cohort, period
UNION ALL
SELECT cohort, -1 AS period, count() AS persons FROM weeks ARRAY JOIN weeks AS cohort GROUP BY cohort`;
}

/** Daily lifecycle: each person's sorted active days, read with their neighbours. */
function lifecycle({ query, parts }: ChdbSqlInput): string {
  const firstDay = `toRelativeDayNum(${instant(query.scanFrom)}, ${zone(query)})`;
  const slots = new BucketMap({ ...query, from: query.scanFrom }).count;
  const born = `toRelativeDayNum(fromUnixTimestamp64Milli(joinGetOrNull('${chdbTables.created}', 'created_ms', person), 'UTC'), ${zone(query)}) - ${firstDay}`;
  return `WITH active AS (
  SELECT person, arraySort(groupUniqArray(toInt64(toRelativeDayNum(timestamp, ${zone(query)})) - ${firstDay})) AS days
  FROM (SELECT ${person} AS person, timestamp FROM ${parts} WHERE event = ${eventOf(query)} AND ${range(query, query.scanFrom)})
  GROUP BY person
), statuses AS (
  SELECT arrayJoin(arrayConcat(
    arrayMap((day, i) -> (day, multiIf(day = ifNull(${born}, -1), 'new', i > 1 AND days[i - 1] = day - 1, 'returning', 'resurrecting')),
      arrayFilter((day, i) -> day > 0, days, arrayEnumerate(days)), arrayFilter((day, i) -> day > 0, arrayEnumerate(days), days)),
    arrayMap(day -> (day + 1, 'dormant'), arrayFilter((day, i) -> day + 1 < ${slots} AND (i = length(days) OR days[i + 1] != day + 1), days, arrayEnumerate(days)))
  )) AS status_of_day
  FROM active
)
SELECT status_of_day.1 AS slot, status_of_day.2 AS status, count() AS persons FROM statuses GROUP BY slot, status`;
}

function stickiness({ query, parts }: ChdbSqlInput): string {
  return `SELECT intervals, count() AS persons FROM (
  SELECT ${person} AS person, uniqExact(toDate(timestamp, ${zone(query)})) AS intervals
  FROM ${parts}
  WHERE event = ${eventOf(query)} AND ${range(query)}
  GROUP BY person
) GROUP BY intervals`;
}

function revenue({ query, parts }: ChdbSqlInput): string {
  const series = query.series[0]!;
  const amount = `\`p_${series.property!}\``;
  return `SELECT toString(day) AS bucket, currency, round(sum(minor)) AS minor FROM (
  SELECT toDate(timestamp, ${zone(query)}) AS day, upper(\`p_${series.currencyProperty}\`) AS currency, ${amount} * (1 / sample_rate) AS minor
  FROM ${parts}
  WHERE event = ${eventOf(query)} AND ${range(query)} AND ${amount} = trunc(${amount})
) GROUP BY GROUPING SETS ((day, currency), (currency))`;
}

/** The ClickHouse SQL of each bench case chdb runs, by case name; the others are left out (see above). */
export const chdbHandSql: Record<string, (input: ChdbSqlInput) => string> = {
  "trends total by $browser": trendsTotalByEventProperty,
  "trends unique persons by person plan": trendsUniquePersonsByPlan,
  "trends p90 of price": trendsP90,
  "retention weekly": retention,
  "lifecycle daily": lifecycle,
  "stickiness daily": stickiness,
  "revenue daily": revenue,
};
