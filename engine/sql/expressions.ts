// SQL for the values the executor reads: property and column expressions over the `events`
// view (alias e) and the `persons` table (alias p), their text and numeric readings, the
// 14 filter operators with the rules of engine/filters.ts (bucket keys: local-time.ts), and
// cohort filters over the `cohort_members` table (cohort_id, person_id: each member as the
// person it is now, as engine/cohorts/membership.ts counts it).
import { numberText, numericPattern, valueText } from "../columns.ts";
import type { Breakdown, CohortFilter, Filter, PropertyFilter, Query } from "../ir/query.ts";
import { groupColumn } from "../../storage/event-columns.ts";
import type { ValueKind } from "../query-data.ts";
import { identifier, literal, type Params } from "./params.ts";

/** Property kinds for this query, as the executor typed them, and their columns' names (column-names.ts). */
export interface SqlKinds {
  event: Map<string, ValueKind>;
  person: Map<string, ValueKind>;
  eventColumns: Map<string, string>;
  personColumns: Map<string, string>;
}

export interface SqlValue {
  sql: string;
  kind: ValueKind;
}

export const personPropertyPrefix = "pp_";

/** A number as JavaScript writes it (integers without ".0"), for comparing numbers as text. */
export const numberAsText = (sql: string) =>
  `CASE WHEN ${sql} = trunc(${sql}) AND abs(${sql}) < 1e21 THEN CAST(CAST(${sql} AS HUGEINT) AS VARCHAR) ELSE CAST(${sql} AS VARCHAR) END`;

/** The number a text holds when it is a plain decimal number, else NULL. */
export const textAsNumber = (sql: string) => `CASE WHEN regexp_full_match(${sql}, ${literal(numericPattern)}) THEN CAST(${sql} AS DOUBLE) END`;

export function filterValue(filter: Pick<PropertyFilter, "type" | "key">, kinds: SqlKinds): SqlValue {
  if (filter.type === "event") return { sql: `e.${identifier(kinds.eventColumns.get(filter.key)!)}`, kind: kinds.event.get(filter.key) ?? "text" };
  if (filter.type === "person") return { sql: `p.${identifier(kinds.personColumns.get(filter.key)!)}`, kind: kinds.person.get(filter.key) ?? "text" };
  if (filter.key === "is_suspect") return { sql: "CAST(e.is_suspect AS VARCHAR)", kind: "text" };
  return { sql: `e.${identifier(filter.key)}`, kind: "text" };
}

export const asText = (value: SqlValue) => (value.kind === "number" ? numberAsText(value.sql) : value.sql);
export const asNumber = (value: SqlValue) => (value.kind === "number" ? value.sql : textAsNumber(value.sql));

type Scalar = string | number | boolean;

/** A number column compares with text only where the text is how that number is written. */
const canonicalNumber = (text: string): number | null => {
  const number = Number(text);
  return text.trim() !== "" && Number.isFinite(number) && numberText(number) === text ? number : null;
};

/** The members of one cohort, by the person after merges. */
export const cohortMembersSql = (params: Params, cohortId: string) => `SELECT person_id FROM cohort_members WHERE cohort_id = ${params.add(cohortId)}`;

const cohortCondition = (filter: CohortFilter, params: Params) =>
  `e.person_id ${filter.operator === "in" ? "IN" : "NOT IN"} (${cohortMembersSql(params, filter.cohort_id)})`;

export function filterCondition(filter: Filter, kinds: SqlKinds, params: Params): string {
  if (filter.type === "cohort") return cohortCondition(filter, params);
  const value = filterValue(filter, kinds);
  const orAbsent = (condition: string) => `(${value.sql} IS NULL OR ${condition})`;
  const scalar = filter.value as Scalar;
  switch (filter.operator) {
    case "is_set":
      return `${value.sql} IS NOT NULL`;
    case "is_not_set":
      return `${value.sql} IS NULL`;
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const symbol = { gt: ">", gte: ">=", lt: "<", lte: "<=" }[filter.operator];
      return `${asNumber(value)} ${symbol} ${params.add(scalar as number)}`;
    }
    case "contains":
      return `contains(lower(${asText(value)}), ${params.add(String(scalar).toLowerCase())})`;
    case "not_contains":
      return orAbsent(`NOT contains(lower(${asText(value)}), ${params.add(String(scalar).toLowerCase())})`);
    case "regex":
      return `regexp_matches(${asText(value)}, ${params.add(String(scalar))})`;
    case "not_regex":
      return orAbsent(`NOT regexp_matches(${asText(value)}, ${params.add(String(scalar))})`);
  }
  const texts = (Array.isArray(filter.value) ? (filter.value as Scalar[]) : [scalar]).map(valueText);
  const positive = filter.operator === "eq" || filter.operator === "in";
  let condition: string;
  if (value.kind === "number") {
    const numbers = texts.map(canonicalNumber).filter((number): number is number => number !== null);
    condition = numbers.length === 0 ? "FALSE" : `${value.sql} IN (${numbers.map((number) => params.add(number)).join(", ")})`;
  } else condition = `${value.sql} IN (${texts.map((text) => params.add(text)).join(", ")})`;
  return positive ? condition : orAbsent(`NOT (${condition})`);
}

export const conditions = (filters: Filter[], kinds: SqlKinds, params: Params) => filters.map((filter) => filterCondition(filter, kinds, params));

/** A row's breakdown value as text (a group breakdown: the group key). */
export function breakdownValueSql(breakdown: Breakdown, kinds: SqlKinds): string {
  if (breakdown.type === "group") return `e.${identifier(groupColumn(breakdown.groupTypeIndex!))}`;
  if (breakdown.type === "cohort") throw new Error("a cohort breakdown has no value per row (trends-cohort-sql.ts, funnel-sql.ts)");
  return asText(filterValue({ type: breakdown.type, key: breakdown.property! }, kinds));
}

/** Whether the query reads person properties (then `persons p` is joined). */
export function readsPersons(query: Query): boolean {
  const filters = [...query.filters, ...query.series.flatMap((series) => series.filters)];
  return filters.some((filter) => filter.type === "person") || query.breakdown?.type === "person";
}

/** Whether the query reads each event's person after merges (every person-centric kind does, and cohorts are sets of persons). */
export function readsPersonIds(query: Query): boolean {
  if (query.kind !== "trends" && query.kind !== "revenue") return true;
  const filters = [...query.filters, ...query.series.flatMap((series) => series.filters)];
  return readsPersons(query) || query.series.some((series) => series.math === "unique_persons")
    || filters.some((filter) => filter.type === "cohort") || query.breakdown?.type === "cohort";
}

/**
 * FROM clause: the events view, joined to person properties when the query reads them; the
 * stored rows without the merge overrides' join when the query reads no person.
 */
export function fromEvents(query: Query): string {
  if (readsPersons(query)) return "events e LEFT JOIN persons p ON p.person_id = e.person_id";
  return readsPersonIds(query) ? "events e" : "stored_events e";
}

/** An instant (epoch ms) as a TIMESTAMPTZ parameter. */
export const instantParam = (params: Params, at: number) => `${params.add(new Date(at).toISOString())}::TIMESTAMPTZ`;

/** WHERE conditions every kind shares: the date range and the global filters. */
export function rangeAndFilters(query: Query, kinds: SqlKinds, params: Params): string[] {
  return [
    `e.timestamp >= ${instantParam(params, query.from)}`,
    `e.timestamp < ${instantParam(params, query.to)}`,
    ...conditions(query.filters, kinds, params),
  ];
}

export const and = (parts: string[]) => (parts.length === 0 ? "TRUE" : parts.join(" AND "));

/** A series' own conditions: its event and its filters. */
export function seriesConditions(event: string | null, filters: Filter[], kinds: SqlKinds, params: Params): string[] {
  return [...(event === null ? [] : [`e.event = ${params.add(event)}`]), ...conditions(filters, kinds, params)];
}
