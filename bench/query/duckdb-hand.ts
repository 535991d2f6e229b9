// Hand-written DuckDB SQL for each bench case: what a DuckDB expert writes for the question,
// answering exactly what the executor answers (no approximate functions). Filters come first;
// local days and weeks are integer arithmetic on UTC milliseconds with the zone's offsets as a
// CASE over the range's DST segments (engine/zone-offsets.ts); persons are merged through the small
// `person_overrides` table only after the rows a case needs are reduced (DISTINCT person_index
// first). Rows come out in the shape of the compiled SQL's, so engines.ts's converters turn
// them into the executor's result. Tables: `events` (a view over the Parquet parts or a
// native table), `person_overrides`, `person_plans`, `person_created` (person-tables.ts).
import { BucketMap } from "../../engine/buckets.ts";
import type { Query } from "../../engine/ir/query.ts";
import { sessionGapMs } from "../../engine/kinds/paths.ts";
import { dayMs } from "../../engine/time-zone.ts";
import { ZoneOffsets, type ZoneSegment } from "../../engine/zone-offsets.ts";

/** 1970-01-01 was a Thursday: (day + this) / 7 counts Monday-based weeks. */
const mondayShiftDays = 3;

const text = (value: string) => `'${value.replaceAll("'", "''")}'`;
const instant = (ms: number) => `make_timestamptz(${ms * 1000})`;

/** What a case's SQL is built from: the validated query and the columns the events relation has. */
export interface HandSqlInput {
  query: Query;
  columns: Set<string>;
}

/** SQL for the local offset of `msSql` (UTC milliseconds): a CASE over the zone's segments. */
function offsetSql(msSql: string, segments: ZoneSegment[]): string {
  if (segments.length === 1) return String(segments[0]!.offset);
  const branches = segments.slice(1).map((segment, index) => `WHEN ${msSql} < ${segment.start} THEN ${segments[index]!.offset}`);
  return `CASE ${branches.join(" ")} ELSE ${segments.at(-1)!.offset} END`;
}

class Sql {
  readonly dayOf: string;
  private readonly offsets: ZoneOffsets;
  private readonly segments: ZoneSegment[];
  constructor(readonly query: Query) {
    this.offsets = ZoneOffsets.of(query.timeZone);
    this.segments = this.offsets.segments(query.scanFrom, query.to);
    this.dayOf = this.localDayOf("epoch_ms(e.timestamp)");
  }
  /** SQL for the local day number of `msSql` (UTC milliseconds in the query's span). */
  localDayOf(msSql: string) {
    return `((${msSql} + ${offsetSql(msSql, this.segments)}) // ${dayMs})`;
  }
  range(from = this.query.from) {
    return `e.timestamp >= ${instant(from)} AND e.timestamp < ${instant(this.query.to)}`;
  }
  event(index = 0) {
    return text(this.query.series[index]!.event!);
  }
  /** The local day number of an instant in ms, computed here. */
  localDay(ms: number) {
    return Math.floor((ms + this.offsets.offsetIn(ms)) / dayMs);
  }
}

const dayLabel = (day: string) => `CAST(DATE '1970-01-01' + CAST(${day} AS INTEGER) AS VARCHAR)`;

function trendsTotalByEventProperty({ query }: HandSqlInput): string {
  const sql = new Sql(query);
  const property = query.breakdown!.property!;
  return `WITH daily AS (
  SELECT ${sql.dayOf} AS day, e."p_${property}" AS breakdown, count(*) AS events, sum(1.0 / e.sample_rate) AS weight
  FROM events e
  WHERE e.event = ${sql.event()} AND ${sql.range()}
  GROUP BY ALL
), ranked AS (
  SELECT breakdown, row_number() OVER (ORDER BY sum(events) DESC, breakdown ASC NULLS LAST) AS rank FROM daily GROUP BY breakdown
)
SELECT 0 AS series, ${dayLabel("d.day")} AS bucket, r.rank, r.breakdown AS breakdown_value, sum(d.weight) AS value
FROM daily d JOIN ranked r ON d.breakdown IS NOT DISTINCT FROM r.breakdown
WHERE r.rank <= ${query.breakdown!.limit}
GROUP BY GROUPING SETS ((d.day, r.rank, r.breakdown), (r.rank, r.breakdown))`;
}

function trendsUniquePersonsByPlan({ query }: HandSqlInput): string {
  const sql = new Sql(query);
  return `WITH raw AS (
  SELECT ${sql.dayOf} AS day, e.person_index, count(*) AS events
  FROM events e
  WHERE e.event = ${sql.event()} AND ${sql.range()}
  GROUP BY ALL
), planned AS (
  SELECT r.day, r.events, coalesce(o.person_id, r.person_index) AS person, p.plan
  FROM raw r LEFT JOIN person_overrides o ON o.person_index = r.person_index
  LEFT JOIN person_plans p ON p.person_id = coalesce(o.person_id, r.person_index)
), ranked AS (
  SELECT plan, row_number() OVER (ORDER BY sum(events) DESC, plan ASC NULLS LAST) AS rank FROM planned GROUP BY plan
)
SELECT 0 AS series, ${dayLabel("p.day")} AS bucket, r.rank, r.plan AS breakdown_value, count(DISTINCT p.person) AS value
FROM planned p JOIN ranked r ON p.plan IS NOT DISTINCT FROM r.plan
WHERE r.rank <= ${query.breakdown!.limit}
GROUP BY GROUPING SETS ((p.day, r.rank, r.plan), (r.rank, r.plan))`;
}

function trendsP90({ query }: HandSqlInput): string {
  const sql = new Sql(query);
  const property = query.series[0]!.property!;
  return `SELECT 0 AS series, ${dayLabel("day")} AS bucket, NULL AS rank, NULL AS breakdown_value, quantile_cont(price, 0.9) AS value
FROM (SELECT ${sql.dayOf} AS day, e."p_${property}" AS price FROM events e WHERE ${sql.range()})
GROUP BY GROUPING SETS ((day), ())`;
}

/**
 * Ordered funnel: the greedy chain of later steps is computed once per step-2 event (ASOF
 * joins over the few step events), then each start takes the chain of its first step-2 event
 * and keeps the steps within the window; a person's attempt is the highest level, earliest start.
 */
function funnel({ query }: HandSqlInput): string {
  const sql = new Sql(query);
  const steps = query.series.map((series) => series.event!);
  const windowMs = query.funnel.windowMs;
  const later = steps.slice(1).map((_, index) => index + 1);
  const distinctSteps = later.map((k) => `step${k} AS (SELECT DISTINCT person, t FROM matched WHERE event = ${text(steps[k]!)})`);
  const chainJoins = later.slice(1).map((k) => `ASOF LEFT JOIN step${k} c${k} ON c${k - 1}.person = c${k}.person AND c${k - 1}.t < c${k}.t`);
  const chainTimes = later.map((k) => `c${k}.t AS t${k}`);
  const level = `CASE ${later.map((k) => `WHEN c.t${k} IS NULL OR c.t${k} > a.t + ${windowMs} THEN ${k}`).join(" ")} ELSE ${steps.length} END`;
  return `WITH matched AS (
  SELECT coalesce(o.person_id, e.person_index) AS person, epoch_ms(e.timestamp) AS t, e.event
  FROM events e LEFT JOIN person_overrides o ON o.person_index = e.person_index
  WHERE e.event IN (${steps.map(text).join(", ")}) AND ${sql.range()}
),
${distinctSteps.join(",\n")},
chains AS (
  SELECT c1.person, ${chainTimes.join(", ")}
  FROM step1 c1 ${chainJoins.join(" ")}
),
attempts AS (
  SELECT a.person, a.t AS s, [a.t, ${later.map((k) => `c.t${k}`).join(", ")}] AS times, ${level} AS level
  FROM (SELECT person, t FROM matched WHERE event = ${text(steps[0]!)}) a ASOF LEFT JOIN chains c ON a.person = c.person AND a.t < c.t1
),
chosen AS (
  SELECT person, arg_max(times, {'level': level, 'earliest': -s}) AS times, max(level) AS level FROM attempts GROUP BY person
)
SELECT NULL AS rank, NULL AS breakdown_value, k AS step, count(*) FILTER (WHERE level > k) AS count,
       quantile_cont(CASE WHEN level > k AND k > 0 THEN (times[k + 1] - times[k]) / 1000.0 END, 0.5) AS median_seconds,
       avg(CASE WHEN level > k AND k > 0 THEN (times[k + 1] - times[k]) / 1000.0 END) AS average_seconds,
       1 AS overall
FROM chosen, range(${steps.length}) AS r(k)
GROUP BY k ORDER BY k`;
}

/** Recurring weekly retention: each person's distinct weeks, joined with themselves. */
function retention({ query }: HandSqlInput): string {
  const sql = new Sql(query);
  const firstWeek = Math.floor((sql.localDay(query.from) + mondayShiftDays) / 7);
  return `WITH raw AS (
  SELECT DISTINCT e.person_index, (${sql.dayOf} + ${mondayShiftDays}) // 7 - ${firstWeek} AS week
  FROM events e
  WHERE e.event = ${sql.event()} AND ${sql.range()}
), weeks AS (
  SELECT DISTINCT coalesce(o.person_id, r.person_index) AS person, r.week
  FROM raw r LEFT JOIN person_overrides o ON o.person_index = r.person_index
)
SELECT c.week AS cohort, r.week - c.week AS period, count(*) AS persons
FROM weeks c JOIN weeks r ON r.person = c.person AND r.week >= c.week AND r.week < c.week + ${query.retention.periods}
GROUP BY ALL
UNION ALL
SELECT week AS cohort, -1 AS period, count(*) AS persons FROM weeks GROUP BY ALL`;
}

/** The executor's path step of an event: the page for $pageview, the screen for $screen, else the event. */
function pathValue(columns: Set<string>): string {
  const urlPath = `coalesce(nullif(regexp_replace(regexp_replace(e."p_$current_url", '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*', ''), '[?#][\\s\\S]*$', ''), ''), '/')`;
  const screen = columns.has("p_$screen_name") ? `coalesce(e."p_$screen_name", e.event)` : "e.event";
  return `CASE WHEN e.event = '$pageview' THEN coalesce(e."p_$pathname", CASE WHEN e."p_$current_url" IS NOT NULL THEN ${urlPath} END, e.event) WHEN e.event = '$screen' THEN ${screen} ELSE e.event END`;
}

/** Paths from each session's start: sessions split at 30-minute gaps, repeats collapsed, the first `depth` steps. */
function paths({ query, columns }: HandSqlInput): string {
  const sql = new Sql(query);
  return `WITH steps AS (
  SELECT coalesce(o.person_id, e.person_index) AS person, e.timestamp AS t, ${pathValue(columns)} AS value
  FROM events e LEFT JOIN person_overrides o ON o.person_index = e.person_index
  WHERE ${sql.range()}
), marked AS (
  SELECT person, t, value, coalesce(epoch_ms(t) - epoch_ms(lag(t) OVER w) > ${sessionGapMs}, TRUE) AS starts_session, lag(value) OVER w AS previous
  FROM steps WINDOW w AS (PARTITION BY person ORDER BY t, value)
), sessions AS (
  SELECT person, t, value, sum(starts_session::INTEGER) OVER (PARTITION BY person ORDER BY t, value ROWS UNBOUNDED PRECEDING) AS session
  FROM marked WHERE starts_session OR previous <> value
), numbered AS (
  SELECT person, value, row_number() OVER s AS n, lead(value) OVER s AS next
  FROM sessions WINDOW s AS (PARTITION BY person, session ORDER BY t, value)
)
SELECT CAST(n AS INTEGER) AS source_step, value AS source, CAST(n + 1 AS INTEGER) AS target_step, next AS target, count(DISTINCT person) AS persons
FROM numbered WHERE n < ${query.paths.depth} AND next IS NOT NULL
GROUP BY ALL ORDER BY persons DESC, source_step, source, target LIMIT ${query.paths.edges}`;
}

/** Daily lifecycle: each person's active days with the previous and next, and the day the person was created. */
function lifecycle({ query }: HandSqlInput): string {
  const sql = new Sql(query);
  const firstDay = sql.localDay(query.scanFrom);
  const slots = new BucketMap({ ...query, from: query.scanFrom }).count;
  const createdDay = sql.localDayOf("c.created_ms");
  return `WITH raw AS (
  SELECT DISTINCT e.person_index, ${sql.dayOf} - ${firstDay} AS slot
  FROM events e
  WHERE e.event = ${sql.event()} AND ${sql.range(query.scanFrom)}
), active AS (
  SELECT DISTINCT coalesce(o.person_id, r.person_index) AS person, r.slot
  FROM raw r LEFT JOIN person_overrides o ON o.person_index = r.person_index
), marked AS (
  SELECT person, slot, lag(slot) OVER w AS previous, lead(slot) OVER w AS next
  FROM active WINDOW w AS (PARTITION BY person ORDER BY slot)
)
SELECT slot, status, count(*) AS persons FROM (
  SELECT m.slot, CASE WHEN ${createdDay} - ${firstDay} = m.slot THEN 'new' WHEN m.previous = m.slot - 1 THEN 'returning' ELSE 'resurrecting' END AS status
  FROM marked m LEFT JOIN person_created c ON c.person_id = m.person
  WHERE m.slot > 0
  UNION ALL
  SELECT slot + 1 AS slot, 'dormant' AS status FROM marked WHERE slot + 1 < ${slots} AND (next IS NULL OR next > slot + 1)
)
GROUP BY ALL`;
}

function stickiness({ query }: HandSqlInput): string {
  const sql = new Sql(query);
  return `WITH raw AS (
  SELECT DISTINCT e.person_index, ${sql.dayOf} AS day
  FROM events e
  WHERE e.event = ${sql.event()} AND ${sql.range()}
), days AS (
  SELECT coalesce(o.person_id, r.person_index) AS person, count(DISTINCT r.day) AS intervals
  FROM raw r LEFT JOIN person_overrides o ON o.person_index = r.person_index
  GROUP BY person
)
SELECT intervals, count(*) AS persons FROM days GROUP BY intervals`;
}

function revenue({ query }: HandSqlInput): string {
  const sql = new Sql(query);
  const series = query.series[0]!;
  return `SELECT ${dayLabel("day")} AS bucket, currency, round(sum(minor)) AS minor
FROM (
  SELECT ${sql.dayOf} AS day, upper(e."p_${series.currencyProperty}") AS currency, e."p_${series.property}" * (1.0 / e.sample_rate) AS minor
  FROM events e
  WHERE e.event = ${sql.event()} AND ${sql.range()} AND e."p_${series.property}" = trunc(e."p_${series.property}")
)
GROUP BY GROUPING SETS ((day, currency), (currency))`;
}

/** The hand-written SQL of each bench case, by case name (bench/query/cases.ts). */
export const duckDbHandSql: Record<string, (input: HandSqlInput) => string> = {
  "trends total by $browser": trendsTotalByEventProperty,
  "trends unique persons by person plan": trendsUniquePersonsByPlan,
  "trends p90 of price": trendsP90,
  "funnel 3 steps": funnel,
  "funnel 5 steps": funnel,
  "retention weekly": retention,
  paths,
  "lifecycle daily": lifecycle,
  "stickiness daily": stickiness,
  "revenue daily": revenue,
};
