// Paths as SQL with the rules of kinds/paths.ts. The statement reads:
//   steps     the range's events (any series' when series are given) passing the filters, each
//             as its step value, the excluded names and values left out
//   marked    one pass sorted per person by time then value: whether the event starts a
//             session (first, or more than 30 minutes after the one before) and whether it
//             repeats the value before it in the session (a reload, dropped)
//   sessions  the session number of each kept event (a running count of starts), and each
//             session's steps as one list in order
//   paths     each session's path: the slice of its steps between the start and end points,
//             depth steps at most (list_position finds the points)
// and the answer: distinct persons per (step, source, target) over consecutive path steps,
// ordered as the executor orders edges.
import type { Query } from "../ir/query.ts";
import { sessionGapMs, type PathEdge, type PathsResult } from "../kinds/paths.ts";
import { and, asText, filterValue, fromEvents, rangeAndFilters, seriesConditions, type SqlKinds } from "./expressions.ts";
import type { Params } from "./params.ts";

export type PathsSqlRow = PathEdge;

/** A step's value: a `$pageview` its URL path, a `$screen` its screen name, other events their name. */
function stepValueSql(kinds: SqlKinds, params: Params): string {
  const text = (key: string) => asText(filterValue({ type: "event", key }, kinds));
  const url = text("$current_url");
  const urlPath = `coalesce(nullif(regexp_replace(regexp_replace(${url}, '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*', ''), '[?#][\\s\\S]*$', ''), ''), '/')`;
  return [
    `CASE WHEN e.event = ${params.add("$pageview")} THEN coalesce(${text("$pathname")}, CASE WHEN ${url} IS NOT NULL THEN ${urlPath} END, e.event)`,
    `WHEN e.event = ${params.add("$screen")} THEN coalesce(${text("$screen_name")}, e.event)`,
    "ELSE e.event END",
  ].join(" ");
}

/**
 * A session's path as a slice of its `steps` list (1-based, both ends included), from `b`, the
 * start point's position, and `e`, the end point's (NULL when a point is not in the session).
 */
function pathSliceSql(query: Query, params: Params): { points: string; slice: string } {
  const { startPoint, endPoint } = query.paths;
  const depth = params.add(query.paths.depth);
  const start = startPoint === null ? null : params.add(startPoint);
  const end = endPoint === null ? null : params.add(endPoint);
  if (start !== null && end !== null) {
    // The end point is the first at or after the start point; a path longer than depth is dropped.
    return {
      points: `b, b - 1 + list_position(steps[b:], ${end}) AS e FROM (SELECT *, list_position(steps, ${start}) AS b FROM sessions)`,
      slice: `CASE WHEN e - b + 1 <= ${depth} THEN steps[b:e] END`,
    };
  }
  if (start !== null) return { points: `list_position(steps, ${start}) AS b FROM sessions`, slice: `steps[b:b + ${depth} - 1]` };
  if (end !== null) return { points: `list_position(steps, ${end}) AS e FROM sessions`, slice: `steps[greatest(1, e - ${depth} + 1):e]` };
  return { points: "NULL AS b FROM sessions", slice: `steps[1:${depth}]` };
}

export function pathsSql(query: Query, kinds: SqlKinds, params: Params): string {
  const value = stepValueSql(kinds, params);
  const series = query.series.map((one) => `(${and(seriesConditions(one.event, one.filters, kinds, params))})`);
  const excluded = query.paths.excludeEvents.map((name) => params.add(name));
  const where = [
    ...rangeAndFilters(query, kinds, params),
    ...(series.length > 0 ? [`(${series.join(" OR ")})`] : []),
    ...(excluded.length > 0 ? [`e.event NOT IN (${excluded.join(", ")})`] : []),
  ];
  const kept = excluded.length > 0 ? `\n  WHERE value NOT IN (${excluded.join(", ")})` : "";
  const order = "PARTITION BY person ORDER BY t, value";
  const path = pathSliceSql(query, params);
  return [
    "WITH steps AS (",
    `  SELECT person, t, value FROM (SELECT e.person_id AS person, epoch_ms(e.timestamp) AS t, ${value} AS value FROM ${fromEvents(query)} WHERE ${and(where)})${kept}`,
    "),",
    "marked AS (",
    `  SELECT person, t, value, coalesce(t - lag(t) OVER w > ${params.add(sessionGapMs)}, TRUE) AS starts_session, value = lag(value) OVER w AS same_value`,
    `  FROM steps WINDOW w AS (${order})`,
    "),",
    "sessions AS (",
    "  SELECT person, list_transform(list_sort(list({t: t, value: value})), step -> step.value) AS steps FROM (",
    `    SELECT person, t, value, sum(starts_session::INTEGER) OVER (${order} ROWS UNBOUNDED PRECEDING) AS session`,
    "    FROM marked WHERE starts_session OR NOT same_value",
    "  ) GROUP BY person, session",
    "),",
    `points AS (SELECT person, steps, ${path.points}),`,
    `paths AS (SELECT person, ${path.slice} AS path FROM points),`,
    "edges AS (SELECT DISTINCT person, k AS source_step, path[k] AS source, path[k + 1] AS target FROM (SELECT person, path, unnest(range(1, len(path))) AS k FROM paths WHERE path IS NOT NULL))",
    "SELECT CAST(source_step AS INTEGER) AS source_step, source, CAST(source_step + 1 AS INTEGER) AS target_step, target, count(*) AS persons",
    "FROM edges GROUP BY ALL",
    `ORDER BY persons DESC, source_step, source, target LIMIT ${params.add(query.paths.edges)}`,
  ].join("\n");
}

export function pathsFromSql(rows: PathsSqlRow[]): PathsResult {
  return { kind: "paths", edges: rows.map((row) => ({ ...row, source_step: Number(row.source_step), target_step: Number(row.target_step), persons: Number(row.persons) })) };
}
