// Paths as SQL: step values per event, sessions by a running count of 30-minute gaps,
// repeated values collapsed, each session's path window from its start and end points, and
// distinct persons per (step, source, target), ordered as the executor orders edges.
import type { Query } from "../ir/query.ts";
import { sessionGapMs, type PathEdge, type PathsResult } from "../kinds/paths.ts";
import { and, asText, filterValue, fromEvents, rangeAndFilters, seriesConditions, type SqlKinds } from "./expressions.ts";
import type { Params } from "./params.ts";

export type PathsSqlRow = PathEdge;

export function pathsSql(query: Query, kinds: SqlKinds, params: Params): string {
  const text = (key: string) => asText(filterValue({ type: "event", key }, kinds));
  const url = text("$current_url");
  const urlPath = `coalesce(nullif(regexp_replace(regexp_replace(${url}, '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*', ''), '[?#][\\s\\S]*$', ''), ''), '/')`;
  const value = [
    `CASE WHEN e.event = ${params.add("$pageview")} THEN coalesce(${text("$pathname")}, CASE WHEN ${url} IS NOT NULL THEN ${urlPath} END, e.event)`,
    `WHEN e.event = ${params.add("$screen")} THEN coalesce(${text("$screen_name")}, e.event)`,
    "ELSE e.event END",
  ].join(" ");
  const series = query.series.map((one) => `(${and(seriesConditions(one.event, one.filters, kinds, params))})`);
  const where = [...rangeAndFilters(query, kinds, params), ...(series.length > 0 ? [`(${series.join(" OR ")})`] : [])];
  const excluded = query.paths.excludeEvents.map((name) => params.add(name));
  const keep = excluded.length === 0 ? "TRUE" : `NOT (event IN (${excluded.join(", ")}) OR value IN (${excluded.join(", ")}))`;
  const { startPoint, endPoint, depth } = query.paths;
  const begin = startPoint === null ? "1" : `min(n) FILTER (WHERE value = ${params.add(startPoint)})`;
  const end = endPoint === null ? "max(x.n)" : `min(x.n) FILTER (WHERE x.value = ${params.add(endPoint)})`;
  const depthParam = params.add(depth);
  const window =
    startPoint !== null && endPoint !== null ? `begin_n AS lo, end_n AS hi FROM ends WHERE end_n - begin_n + 1 <= ${depthParam}`
    : endPoint !== null ? `greatest(begin_n, end_n - ${depthParam} + 1) AS lo, end_n AS hi FROM ends`
    : `begin_n AS lo, least(end_n, begin_n + ${depthParam} - 1) AS hi FROM ends`;
  const order = "PARTITION BY person_id ORDER BY timestamp, value";
  return [
    "WITH steps AS (",
    `  SELECT person_id, timestamp, value FROM (SELECT e.person_id, e.timestamp, e.event, ${value} AS value FROM ${fromEvents(query)} WHERE ${and(where)})`,
    `  WHERE ${keep}`,
    "),",
    "sessions AS (",
    `  SELECT person_id, timestamp, value, sum(CASE WHEN prev IS NULL OR epoch_ms(timestamp) - epoch_ms(prev) > ${params.add(sessionGapMs)} THEN 1 ELSE 0 END)`,
    `    OVER (${order} ROWS UNBOUNDED PRECEDING) AS session`,
    `  FROM (SELECT *, lag(timestamp) OVER (${order}) AS prev FROM steps)`,
    "),",
    "numbered AS (",
    "  SELECT person_id, session, value, row_number() OVER (PARTITION BY person_id, session ORDER BY timestamp, value) AS n FROM (",
    "    SELECT *, lag(value) OVER (PARTITION BY person_id, session ORDER BY timestamp, value) AS prev_value FROM sessions",
    "  ) WHERE prev_value IS NULL OR prev_value <> value",
    "),",
    `begins AS (SELECT person_id, session, ${begin} AS begin_n FROM numbered GROUP BY ALL HAVING begin_n IS NOT NULL),`,
    "ends AS (",
    `  SELECT b.person_id, b.session, b.begin_n, ${end} AS end_n`,
    "  FROM begins b JOIN numbered x ON x.person_id = b.person_id AND x.session = b.session AND x.n >= b.begin_n",
    "  GROUP BY ALL HAVING end_n IS NOT NULL",
    "),",
    `windows AS (SELECT person_id, session, ${window}),`,
    "path AS (",
    "  SELECT x.person_id, x.n - w.lo + 1 AS step, x.value, lead(x.value) OVER (PARTITION BY x.person_id, x.session ORDER BY x.n) AS next",
    "  FROM numbered x JOIN windows w ON w.person_id = x.person_id AND w.session = x.session AND x.n BETWEEN w.lo AND w.hi",
    ")",
    "SELECT CAST(step AS INTEGER) AS source_step, value AS source, CAST(step + 1 AS INTEGER) AS target_step, next AS target, count(DISTINCT person_id) AS persons",
    "FROM path WHERE next IS NOT NULL GROUP BY ALL",
    `ORDER BY persons DESC, source_step, source, target LIMIT ${params.add(query.paths.edges)}`,
  ].join("\n");
}

export function pathsFromSql(rows: PathsSqlRow[]): PathsResult {
  return { kind: "paths", edges: rows.map((row) => ({ ...row, source_step: Number(row.source_step), target_step: Number(row.target_step), persons: Number(row.persons) })) };
}
