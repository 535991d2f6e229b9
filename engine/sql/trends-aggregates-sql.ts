// The aggregates of a trends series in SQL: what each `math` computes over rows, and which
// event columns it reads.
import type { Series } from "../ir/query.ts";
import { groupColumn } from "../../storage/event-columns.ts";
import { asNumber, filterValue, type SqlKinds } from "./expressions.ts";
import { identifier } from "./params.ts";

const quantiles: Record<string, number> = { p50: 0.5, p90: 0.9, p99: 0.99 };
export const weight = "(1.0 / sample_rate)";

/** The aggregate of a series over rows exposing what seriesInputs names, its number as `number`. */
export function aggregate(series: Series, number: string): string {
  switch (series.math) {
    case "total":
      return `coalesce(sum(${weight}), 0)`;
    case "unique_persons":
      return "count(DISTINCT person_id)";
    case "unique_sessions":
      return "count(DISTINCT session_id)";
    case "unique_groups":
      return `count(DISTINCT ${identifier(groupColumn(series.groupTypeIndex!))})`;
    case "sum":
      return `coalesce(sum(${number} * ${weight}), 0)`;
    case "avg":
      return `sum(${number} * ${weight}) / sum(CASE WHEN ${number} IS NOT NULL THEN ${weight} END)`;
    case "min":
    case "max":
      return `${series.math}(${number})`;
    default:
      return `quantile_cont(${number}, ${quantiles[series.math]})`;
  }
}

/** The event columns a series' aggregate reads (its number is selected on its own). */
export function seriesInputs(series: Series): string[] {
  switch (series.math) {
    case "total":
    case "sum":
    case "avg":
      return ["e.sample_rate"];
    case "unique_persons":
      return ["e.person_id"];
    case "unique_sessions":
      return ["e.session_id"];
    case "unique_groups":
      return [`e.${identifier(groupColumn(series.groupTypeIndex!))}`];
    default:
      return [];
  }
}

export const numberOf = (series: Series, kinds: SqlKinds) => (series.property === null ? null : asNumber(filterValue({ type: "event", key: series.property }, kinds)));
