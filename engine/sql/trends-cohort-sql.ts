// Trends by cohort as SQL: each series' rows joined to the members of the named cohorts
// (`cohort_members`, by the person after merges), so a person in several cohorts counts in
// each; grouped by (bucket key, cohort) and by cohort for the range total. The cohorts are
// ranked in the order the breakdown names them.
import type { Query } from "../ir/query.ts";
import { and, fromEvents, rangeAndFilters, seriesConditions, type SqlKinds } from "./expressions.ts";
import { bucketKeySql, bucketLabelSql } from "./local-time.ts";
import type { Params } from "./params.ts";
import { aggregate, numberOf, seriesInputs } from "./trends-aggregates-sql.ts";

/** The breakdown's cohorts as a VALUES list of (rank, cohort_id), ranks from 1 in the order named. */
export const rankedCohortsSql = (cohortIds: string[], params: Params) =>
  `(VALUES ${cohortIds.map((cohortId, index) => `(${index + 1}, ${params.add(cohortId)})`).join(", ")}) AS c (rank, cohort_id)`;

export function trendsCohortSql(query: Query, kinds: SqlKinds, params: Params): string {
  const key = bucketKeySql(query);
  const label = bucketLabelSql(query.interval, "key");
  const cohorts = rankedCohortsSql(query.breakdown!.cohortIds, params);
  const where = rangeAndFilters(query, kinds, params);
  return query.series
    .map((series, index) => {
      const number = numberOf(series, kinds);
      const inputs = [`${key} AS key`, "c.rank", "c.cohort_id", ...seriesInputs(series), ...(number === null ? [] : [`${number} AS number`])];
      return [
        `SELECT ${index} AS series, ${label} AS bucket, rank, min(cohort_id) AS breakdown_value, ${aggregate(series, "number")} AS value`,
        `FROM (SELECT ${inputs.join(", ")}`,
        `      FROM ${fromEvents(query)}`,
        "      JOIN cohort_members m ON m.person_id = e.person_id",
        `      JOIN ${cohorts} ON c.cohort_id = m.cohort_id`,
        `      WHERE ${and([...where, ...seriesConditions(series.event, series.filters, kinds, params)])})`,
        "GROUP BY GROUPING SETS ((key, rank), (rank))",
      ].join("\n");
    })
    .join("\nUNION ALL\n") + "\nORDER BY series, rank, bucket NULLS FIRST";
}
