// Trends: one row per series (x breakdown value), one value per interval bucket in the
// project's time zone, and the whole range's value as `total`.
//   total             events, each weighted 1 / sample rate
//   unique_persons    distinct canonical persons (merges applied); unique_sessions, unique_groups likewise
//   sum, avg          of the property's numeric values, weighted like total (avg = weighted mean)
//   min, max, p50, p90, p99   of the numeric values, unweighted (p = linear interpolation)
// Unique counts and percentiles are not weighted by sampling: sampling keeps or drops single
// events, so it cannot be undone for a count of distinct things.
import { absentValue, BreakdownValues, groupSlots } from "../breakdown.ts";
import { DistinctPairs } from "../distinct-pairs.ts";
import { WordIds } from "../../storage/word-ids.ts";
import type { Query, Series } from "../ir/query.ts";
import { numericValues } from "../numeric.ts";
import { quantileInPlace, ValueLists } from "../quantile.ts";
import type { LoadedChunk, QueryData } from "../query-data.ts";
import { baseSelection, columnsNeeded, seriesSelection } from "../selection.ts";
import { BucketMap } from "../buckets.ts";
import { groupColumn } from "../../storage/event-columns.ts";

export interface TrendsRow {
  series: number;
  event: string | null;
  math: string;
  breakdown_value?: string | null;
  breakdown_other?: boolean;
  values: (number | null)[];
  total: number | null;
}

export interface TrendsResult {
  kind: "trends";
  interval: string;
  time_zone: string;
  buckets: string[];
  rows: TrendsRow[];
}

const quantiles: Record<string, number> = { p50: 0.5, p90: 0.9, p99: 0.99 };

/** One series' aggregate over cells (group x bucket) and totals (group). */
class SeriesAggregate {
  readonly sums: Float64Array;
  readonly weights: Float64Array;
  readonly extremes: Float64Array;
  readonly totalSums: Float64Array;
  readonly totalWeights: Float64Array;
  readonly totalExtremes: Float64Array;
  readonly distinct: DistinctPairs | null;
  readonly totalDistinct: DistinctPairs | null;
  /** Percentile values per cell; a group's total reads its cells' lists together. */
  readonly lists: ValueLists | null;
  /** Rows the series selected per group (an "other" group only some series fed is left out for the rest). */
  readonly rowsSeen: Float64Array;

  constructor(readonly series: Series, readonly groups: number, readonly buckets: number) {
    const cells = groups * buckets;
    const math = series.math;
    this.sums = new Float64Array(cells);
    this.weights = new Float64Array(cells);
    this.totalSums = new Float64Array(groups);
    this.totalWeights = new Float64Array(groups);
    const start = math === "min" ? Infinity : -Infinity;
    this.extremes = new Float64Array(cells).fill(start);
    this.totalExtremes = new Float64Array(groups).fill(start);
    const distinct = math.startsWith("unique_");
    this.distinct = distinct ? new DistinctPairs(cells) : null;
    this.totalDistinct = distinct ? new DistinctPairs(groups) : null;
    this.lists = math in quantiles ? new ValueLists(cells) : null;
    this.rowsSeen = new Float64Array(groups);
  }

  value(cell: number, total: boolean): number | null {
    const math = this.series.math;
    if (math === "total" || math === "sum") return (total ? this.totalSums : this.sums)[cell]!;
    if (math.startsWith("unique_")) return (total ? this.totalDistinct! : this.distinct!).counts[cell]!;
    if (math === "avg") {
      const weight = (total ? this.totalWeights : this.weights)[cell]!;
      return weight === 0 ? null : (total ? this.totalSums : this.sums)[cell]! / weight;
    }
    if (math === "min" || math === "max") {
      const extreme = (total ? this.totalExtremes : this.extremes)[cell]!;
      return Number.isFinite(extreme) ? extreme : null;
    }
    // Each list is read once per query, so selection may reorder it in place.
    const values = total ? this.lists!.concat(cell * this.buckets, (cell + 1) * this.buckets) : this.lists!.values(cell);
    return quantileInPlace(values, quantiles[math]!);
  }
}

/** Distinct ids per row for a unique_* math (-1 where the row has none). */
function distinctIds(chunk: LoadedChunk, series: Series, sessions: WordIds, groups: WordIds): Int32Array {
  if (series.math === "unique_persons") return chunk.persons;
  const column = chunk.text(series.math === "unique_sessions" ? "session_id" : groupColumn(series.groupTypeIndex!));
  const ids = series.math === "unique_sessions" ? sessions : groups;
  const remap = ids.remap(column.words);
  return Int32Array.from(column.codes, (code) => (code < 0 ? -1 : remap[code]!));
}

export async function trends(data: QueryData): Promise<TrendsResult> {
  const query: Query = data.query;
  const { columns, eventProperties } = columnsNeeded(query);
  await data.prepare(eventProperties);
  const buckets = new BucketMap(query);
  const breakdown = query.breakdown;
  const values = new BreakdownValues();

  let slotOf: (value: number) => number = () => 0;
  let groupIds: number[] = [absentValue];
  let hasOther = false;
  if (breakdown) {
    for (const ref of data.chunks) {
      const chunk = await data.load(ref, columns);
      const base = baseSelection(chunk, query);
      const rowValues = values.rowValues(chunk, breakdown);
      for (const series of query.series) values.count(rowValues, seriesSelection(chunk, base, series));
    }
    const ranked = values.rank(breakdown.limit);
    groupIds = ranked.top;
    hasOther = ranked.hasOther;
    slotOf = groupSlots(ranked.top, ranked.top.length);
  }
  const groups = groupIds.length + (hasOther ? 1 : 0);
  const aggregates = query.series.map((series) => new SeriesAggregate(series, groups, buckets.count));
  const sessions = new WordIds();
  const groupKeys = new WordIds();

  for (const ref of data.chunks) {
    const chunk = await data.load(ref, columns);
    const base = baseSelection(chunk, query);
    if (base.length === 0) continue;
    const bucketOf = buckets.rowBuckets(chunk.timestamps, base);
    const weights = chunk.weights;
    const rowGroups = breakdown ? values.rowValues(chunk, breakdown) : null;
    for (const aggregate of aggregates) {
      const series = aggregate.series;
      const selection = seriesSelection(chunk, base, series);
      if (selection.length === 0) continue;
      const math = series.math;
      const numbers = series.property !== null ? numericValues(chunk.eventProperty(series.property)) : null;
      const ids = math.startsWith("unique_") ? distinctIds(chunk, series, sessions, groupKeys) : null;
      for (let i = 0; i < selection.length; i++) {
        const row = selection[i]!;
        const group = rowGroups ? slotOf(rowGroups[row]!) : 0;
        const cell = group * buckets.count + bucketOf[row]!;
        const weight = weights ? weights[row]! : 1;
        aggregate.rowsSeen[group]!++;
        if (math === "total") {
          aggregate.sums[cell]! += weight;
          aggregate.totalSums[group]! += weight;
        } else if (ids) {
          const id = ids[row]!;
          if (id < 0) continue;
          aggregate.distinct!.add(cell, id);
          aggregate.totalDistinct!.add(group, id);
        } else {
          const value = numbers![row]!;
          if (Number.isNaN(value)) continue;
          if (math === "sum" || math === "avg") {
            aggregate.sums[cell]! += value * weight;
            aggregate.weights[cell]! += weight;
            aggregate.totalSums[group]! += value * weight;
            aggregate.totalWeights[group]! += weight;
          } else if (math === "min") {
            if (value < aggregate.extremes[cell]!) aggregate.extremes[cell] = value;
            if (value < aggregate.totalExtremes[group]!) aggregate.totalExtremes[group] = value;
          } else if (math === "max") {
            if (value > aggregate.extremes[cell]!) aggregate.extremes[cell] = value;
            if (value > aggregate.totalExtremes[group]!) aggregate.totalExtremes[group] = value;
          } else {
            aggregate.lists!.push(cell, value);
          }
        }
      }
    }
  }

  const rows: TrendsRow[] = [];
  aggregates.forEach((aggregate, index) => {
    const series = aggregate.series;
    for (let group = 0; group < groups; group++) {
      const isOther = group === groupIds.length;
      if (breakdown && isOther && aggregate.rowsSeen[group] === 0) continue;
      const row: TrendsRow = { series: index, event: series.event, math: series.math, values: [], total: aggregate.value(group, true) };
      if (breakdown) {
        row.breakdown_value = isOther ? null : values.label(groupIds[group]!);
        row.breakdown_other = isOther;
      }
      for (let bucket = 0; bucket < buckets.count; bucket++) row.values.push(aggregate.value(group * buckets.count + bucket, false));
      rows.push(row);
    }
  });
  return { kind: "trends", interval: query.interval, time_zone: query.timeZone, buckets: buckets.labels, rows };
}
