// Trends: one row per series (x breakdown value, or x cohort of a cohort breakdown), one value
// per interval bucket in the project's time zone, and the whole range's value as `total`.
//   total             events, each weighted 1 / sample rate
//   unique_persons    distinct canonical persons (merges applied); unique_sessions, unique_groups likewise
//   sum, avg          of the property's numeric values, weighted like total (avg = weighted mean)
//   min, max, p50, p90, p99   of the numeric values, unweighted (p = linear interpolation)
// Unique counts and percentiles are not weighted by sampling: sampling keeps or drops single
// events, so it cannot be undone for a count of distinct things.
import { absentValue, BreakdownValues, groupSlots, type ChunkValues } from "../breakdown.ts";
import { WordIds } from "../../storage/word-ids.ts";
import type { Breakdown, Query, Series } from "../ir/query.ts";
import { numericValues } from "../numeric.ts";
import type { LoadedChunk, QueryData } from "../query-data.ts";
import { baseSelection, breakdownColumns, columnsNeeded, instantSpan, seriesRows } from "../selection.ts";
import { narrow } from "../filters.ts";
import { isAdditive, SeriesAggregate, type ChunkCells } from "./trends-aggregate.ts";
import { BucketMap } from "../buckets.ts";
import { checkAnswerCells } from "../answer-size.ts";
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

/** Distinct ids per row for a unique_* math (-1 where the row has none). */
function distinctIds(chunk: LoadedChunk, series: Series, sessions: WordIds, groups: WordIds): Int32Array {
  if (series.math === "unique_persons") return chunk.persons;
  const column = chunk.text(series.math === "unique_sessions" ? "session_id" : groupColumn(series.groupTypeIndex!));
  const ids = series.math === "unique_sessions" ? sessions : groups;
  const remap = ids.remap(column.words);
  return Int32Array.from(column.codes, (code) => (code < 0 ? -1 : remap[code]!));
}

/** Grouping of each chunk's rows: a breakdown's groups by code (null: one group). */
type ChunkGrouping = (chunk: LoadedChunk) => Pick<ChunkCells, "groupCodes" | "groupOfCode">;

/**
 * Rows of a chunk's base selection each set of aggregates reads: all of them, or with a cohort
 * breakdown the rows of each cohort's members (a person in several cohorts is in each set).
 */
type ChunkSubsets = (chunk: LoadedChunk, base: Uint32Array) => Uint32Array[];
const wholeBase: ChunkSubsets = (_, base) => [base];

/** Adds every chunk's rows into the aggregates (`aggregates[i]` reads subset i), grouped by `grouping`. */
async function aggregateChunks(
  data: QueryData, columns: string[], buckets: BucketMap, aggregates: SeriesAggregate[][], grouping: ChunkGrouping, subsets = wholeBase,
): Promise<void> {
  const query = data.query;
  const sessions = new WordIds();
  const groupKeys = new WordIds();
  // Each chunk's row buckets, one array reused from chunk to chunk.
  let bucketScratch = new Int32Array(0);
  for (const ref of data.chunksToRead) {
    const chunk = await data.load(ref, columns);
    const base = baseSelection(chunk, query);
    if (base.length === 0) continue;
    const { low, high } = instantSpan(chunk);
    if (bucketScratch.length < chunk.rows) bucketScratch = new Int32Array(chunk.rows);
    const cells: ChunkCells = { buckets: buckets.rowBuckets(chunk.timestamps, base, low, high, bucketScratch), ...grouping(chunk) };
    const weights = chunk.weights;
    subsets(chunk, base).forEach((subset, index) => {
      for (const aggregate of aggregates[index]!) {
        const series = aggregate.series;
        const rows = seriesRows(chunk, subset, series);
        if (rows.rows.length === 0) continue;
        if (series.math === "total") aggregate.addTotals(cells, rows, weights);
        else if (series.math.startsWith("unique_")) aggregate.addDistinct(cells, rows, distinctIds(chunk, series, sessions, groupKeys));
        else aggregate.addNumbers(cells, rows, weights, numericValues(chunk.eventProperty(series.property!)));
      }
    });
  }
}

const ungrouped: ChunkGrouping = () => ({ groupCodes: null, groupOfCode: null });

/** Trends by cohort: each series' rows of each cohort's members, one row per (series, cohort) in the order named. */
async function trendsByCohort(data: QueryData, columns: string[], buckets: BucketMap, cohortIds: string[]): Promise<TrendsRow[]> {
  const query = data.query;
  checkTrendsCells(data, cohortIds.length, buckets.count);
  const aggregates = cohortIds.map(() => query.series.map((series) => new SeriesAggregate(series, 1, buckets.count)));
  const members = (chunk: LoadedChunk, base: Uint32Array) => cohortIds.map((cohortId) => narrow(base, chunk.cohortMask(cohortId, true)));
  await aggregateChunks(data, columns, buckets, aggregates, ungrouped, members);
  return query.series.flatMap((series, index) => cohortIds.map((cohortId, cohort) => {
    const aggregate = aggregates[cohort]![index]!;
    const values = Array.from({ length: buckets.count }, (_, bucket) => aggregate.value(bucket, false));
    return { series: index, event: series.event, math: series.math, breakdown_value: cohortId, breakdown_other: false, values, total: aggregate.value(0, true) };
  }));
}

/** Each chunk's breakdown codes grouped by `groupOf` (global value id to group). */
function groupedBy(values: BreakdownValues, breakdown: Breakdown, groupOf: (value: number) => number): ChunkGrouping {
  return (chunk) => {
    const chunkValues: ChunkValues = values.chunkValues(chunk, breakdown);
    return { groupCodes: chunkValues.codes, groupOfCode: values.groupsOfCodes(chunkValues, groupOf) };
  };
}

function checkTrendsCells(data: QueryData, groups: number, buckets: number): void {
  const query = data.query;
  const dimensions = [{ count: query.series.length, name: "series" }, { count: buckets, name: `${query.interval} intervals` }];
  if (query.breakdown) dimensions.splice(1, 0, { count: groups, name: "breakdown values" });
  checkAnswerCells(dimensions, data.answerCellsMax, "use fewer series, a lower breakdown limit, a longer interval or a shorter date range");
}

export async function trends(data: QueryData): Promise<TrendsResult> {
  const query: Query = data.query;
  const { columns, eventProperties } = columnsNeeded(query);
  await data.prepare(eventProperties);
  const buckets = new BucketMap(query);
  const breakdown = query.breakdown;
  const values = new BreakdownValues();
  const aggregatesOf = (groups: number) => query.series.map((series) => new SeriesAggregate(series, groups, buckets.count));

  const result = (rows: TrendsRow[]): TrendsResult => ({ kind: "trends", interval: query.interval, time_zone: query.timeZone, buckets: buckets.labels, rows });
  if (breakdown?.type === "cohort") return result(await trendsByCohort(data, columns, buckets, breakdown.cohortIds));

  let aggregates: SeriesAggregate[];
  let groupIds: number[] = [absentValue];
  let hasOther = false;
  if (!breakdown) {
    checkTrendsCells(data, 1, buckets.count);
    aggregates = aggregatesOf(1);
    await aggregateChunks(data, columns, buckets, [aggregates], ungrouped);
  } else {
    // The values' ids first (dictionaries only): with few values and additive maths, one pass
    // aggregates by value and the values fold into their slots once ranked; otherwise a pass
    // ranks the values and a second aggregates by slot.
    const additive = query.series.every((series) => isAdditive(series.math));
    if (additive) for (const ref of data.chunksToRead) values.chunkValues(await data.load(ref, breakdownColumns(breakdown)), breakdown);
    const valueGroups = values.ids.words.length + 1;
    const byValue = additive && valueGroups * buckets.count * query.series.length <= data.trendsValueCellsMax;
    const perValue = byValue ? aggregatesOf(valueGroups) : [];
    if (byValue) {
      // Group of value id v: v + 1 (group 0: absent).
      await aggregateChunks(data, columns, buckets, [perValue], groupedBy(values, breakdown, (value) => value + 1));
      for (const aggregate of perValue) values.addVolumes(aggregate.rowsSeen);
    } else {
      for (const ref of data.chunksToRead) {
        const chunk = await data.load(ref, columns);
        const base = baseSelection(chunk, query);
        const chunkValues = values.chunkValues(chunk, breakdown);
        for (const series of query.series) values.count(chunkValues, seriesRows(chunk, base, series));
      }
    }
    const ranked = values.rank(breakdown.limit);
    groupIds = ranked.top;
    hasOther = ranked.hasOther;
    const rankedGroups = groupIds.length + (hasOther ? 1 : 0);
    checkTrendsCells(data, rankedGroups, buckets.count);
    const slotOf = groupSlots(ranked.top, ranked.top.length);
    aggregates = aggregatesOf(rankedGroups);
    if (byValue) {
      const slotOfGroup = Int32Array.from({ length: valueGroups }, (_, group) => slotOf(group - 1));
      perValue.forEach((aggregate, index) => aggregate.foldInto(aggregates[index]!, slotOfGroup));
    } else await aggregateChunks(data, columns, buckets, [aggregates], groupedBy(values, breakdown, slotOf));
  }
  const groups = groupIds.length + (hasOther ? 1 : 0);

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
  return result(rows);
}
