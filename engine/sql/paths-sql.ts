// Paths as SQL with the rules of kinds/paths.ts, in two passes sorted per person by time then
// value (the executor's order). The statement reads:
//   steps    the range's events (any series' when series are given) passing the filters, each
//            as its step value; excluded names and values left out
//   names    the step values numbered in text order: the passes sort and compare integer ids
//   marked   first pass: whether the event starts a session (the person's first, or more than
//            30 minutes after the one before) and whether it repeats the value before it in
//            its session (a reload: dropped)
//   ahead    second pass, over the kept events: the start time of the event's session, the
//            last earlier time of a start or end point (to tell a point's first occurrence in
//            its session), and the values and session starts of the depth events from it
//            (forward from where a path begins, backward to where it ends with only an end point)
//   paths    each session's path: from its first event or its start point's first
//            occurrence, cut at the next session and at the end point, depth steps at most
//   edges    each person's (step, source, target) over consecutive path steps, once
// and the answer: persons per edge with the values' text, ordered as the executor orders edges.
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
 * The first pass's point flags, the second pass's columns, the rows a path is read from, the
 * events of the row's session within reach (`session`, from `ids` and `starts`: the values and
 * session starts of the depth events from the row on, or up to it) and the path made from them
 * (`path`, over `session`; `ends` joins the end point's id when the path is cut there).
 */
function pathShape(query: Query, params: Params): { flags: string[]; columns: string[]; rows: string; session: string; path: string; ends: string } {
  const { startPoint, endPoint, depth } = query.paths;
  // The depth events from a row on (or, backward, up to it): lead() (lag()) at each distance,
  // an event past the person's last (first) counting as a session start.
  const reach = (shift: "lead" | "lag") => {
    const distances = Array.from({ length: depth - 1 }, (_, j) => j + 1);
    if (shift === "lag") distances.reverse();
    const at = (column: string, j: number) => `${shift}(${column}, ${j}) OVER w`;
    const values = distances.map((j) => at("id", j));
    const starts = distances.map((j) => `coalesce(${at("starts_session", j)}, TRUE)`);
    const list = (own: string, others: string[]) => `[${(shift === "lead" ? [own, ...others] : [...others, own]).join(", ")}]`;
    return [`${list("id", values)} AS ids`, `${list("starts_session", starts)} AS starts`];
  };
  const start = startPoint === null ? null : params.add(startPoint);
  const end = endPoint === null ? null : params.add(endPoint);
  const flags = [...(start === null ? [] : [`s.value = ${start} AS is_start`]), ...(end === null ? [] : [`s.value = ${end} AS is_end`])];
  const earlier = (name: string) => `max(CASE WHEN is_${name} THEN t END) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_${name}`;
  const columns = [
    ...(start === null ? [] : ["is_start"]),
    ...(end === null ? [] : ["is_end"]),
    ...(start === null && end === null ? [] : ["max(CASE WHEN starts_session THEN t END) OVER (w ROWS UNBOUNDED PRECEDING) AS session_start"]),
    ...(start === null ? [] : [earlier("start")]),
    ...(end === null ? [] : [earlier("end")]),
  ];
  /** A point's first occurrence in its session: no occurrence since the session started. */
  const firstInSession = (name: string) => `is_${name} AND NOT coalesce(earlier_${name} >= session_start, FALSE)`;
  if (start === null && end !== null) {
    // Backward from the end point's first occurrence, to the last session start among the depth events up to it.
    return {
      flags,
      columns: [...columns, ...reach("lag")],
      rows: firstInSession("end"),
      session: "ids[len(starts) + 1 - coalesce(list_position(list_reverse(starts), TRUE), len(starts)):]",
      path: "session",
      ends: "",
    };
  }
  return {
    flags,
    columns: [...columns, ...reach("lead")],
    rows: start === null ? "starts_session" : firstInSession("start"),
    // Forward: cut before the next session's start.
    session: "ids[1:coalesce(list_position(starts[2:], TRUE), len(ids))]",
    // With an end point too, the path ends at its first occurrence within reach, or there is none.
    path: end === null ? "session" : "CASE WHEN list_contains(session, end_id) THEN session[1:list_position(session, end_id)] END",
    ends: end === null ? "" : ` CROSS JOIN (SELECT id AS end_id FROM names WHERE value = ${end})`,
  };
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
  const shape = pathShape(query, params);
  return [
    "WITH steps AS (",
    `  SELECT person, t, value FROM (SELECT e.person_id AS person, epoch_ms(e.timestamp) AS t, ${value} AS value FROM ${fromEvents(query)} WHERE ${and(where)})${kept}`,
    "),",
    "names AS (SELECT value, row_number() OVER (ORDER BY value) AS id FROM (SELECT DISTINCT value FROM steps)),",
    "marked AS (",
    `  SELECT s.person, s.t, n.id, ${[...shape.flags, ""].join(", ")}coalesce(s.t - lag(s.t) OVER w > ${params.add(sessionGapMs)}, TRUE) AS starts_session, n.id = lag(n.id) OVER w AS same_value`,
    "  FROM steps s JOIN names n USING (value) WINDOW w AS (PARTITION BY s.person ORDER BY s.t, n.id)",
    "),",
    "ahead AS (",
    `  SELECT person, starts_session, ${shape.columns.join(",\n    ")}`,
    "  FROM marked WHERE starts_session OR NOT same_value",
    "  WINDOW w AS (PARTITION BY person ORDER BY t, id)",
    "),",
    "paths AS (",
    `  SELECT person, ${shape.path} AS path`,
    `  FROM (SELECT person, ${shape.session} AS session FROM ahead WHERE ${shape.rows})${shape.ends}`,
    "),",
    "edges AS (SELECT DISTINCT person, k AS step, path[k] AS source, path[k + 1] AS target FROM (SELECT person, path, unnest(range(1, len(path))) AS k FROM paths WHERE path IS NOT NULL)),",
    "counted AS (SELECT step, source, target, count(*) AS persons FROM edges GROUP BY ALL)",
    "SELECT CAST(step AS INTEGER) AS source_step, s.value AS source, CAST(step + 1 AS INTEGER) AS target_step, t.value AS target, persons",
    "FROM counted JOIN names s ON s.id = counted.source JOIN names t ON t.id = counted.target",
    `ORDER BY persons DESC, source_step, source, target LIMIT ${params.add(query.paths.edges)}`,
  ].join("\n");
}

export function pathsFromSql(rows: PathsSqlRow[]): PathsResult {
  return { kind: "paths", edges: rows.map((row) => ({ ...row, source_step: Number(row.source_step), target_step: Number(row.target_step), persons: Number(row.persons) })) };
}
