// Retention. Cohorts are the range's intervals: a person joins the cohort of each interval in
// which they did the start event (series[0]); `first_time` puts each person only in the
// cohort of their first-ever start event (all history before the range's end is read, and a
// person whose first start event came before the range is in no cohort). For a cohort at
// interval c, period k counts the cohort's persons who did the return event (series[1],
// default series[0]) in interval c + k, for k = 0 .. periods - 1 while c + k is inside the
// range (later cohorts have fewer periods). Persons are not weighted by sampling.
import { BucketMap } from "../buckets.ts";
import { checkAnswerCells } from "../answer-size.ts";
import type { QueryData } from "../query-data.ts";
import { baseSelection, columnsNeeded, seriesSelection } from "../selection.ts";
import { StreamBuilder } from "../person-streams.ts";
import type { Query } from "../ir/query.ts";

export interface RetentionCohort {
  /** The cohort's interval label. */
  cohort: string;
  size: number;
  /** values[k]: cohort persons who did the return event k intervals later. */
  values: number[];
}

export interface RetentionResult {
  kind: "retention";
  interval: string;
  time_zone: string;
  retention_type: string;
  periods: number;
  cohorts: RetentionCohort[];
}

const startFlag = 1;
const returnFlag = 2;
/** The bucket of a start event before the range (first-time retention only). */
const beforeRange = -1;

/** The result from cohort sizes and counts[c][k] (persons of cohort c returning in c + k). */
export function retentionFrom(query: Query, labels: string[], sizes: number[], counts: number[][]): RetentionResult {
  return {
    kind: "retention",
    interval: query.interval,
    time_zone: query.timeZone,
    retention_type: query.retention.type,
    periods: query.retention.periods,
    cohorts: labels.map((cohort, c) => ({
      cohort,
      size: sizes[c] ?? 0,
      values: Array.from({ length: Math.min(query.retention.periods, labels.length - c) }, (_, k) => counts[c]?.[k] ?? 0),
    })),
  };
}

export async function retention(data: QueryData): Promise<RetentionResult> {
  const query = data.query;
  const { columns, eventProperties } = columnsNeeded(query);
  await data.prepare(eventProperties);
  const buckets = new BucketMap(query);
  checkAnswerCells(
    [{ count: buckets.count, name: `${query.interval} cohorts` }, { count: query.retention.periods, name: "periods" }],
    data.answerCellsMax,
    "use fewer periods, a longer interval or a shorter date range",
  );
  const start = query.series[0]!;
  const back = query.series[1] ?? start;
  // Without a return event of its own, each start row is also a return row: pushed once.
  const sameEvent = query.series.length === 1;
  const firstTime = query.retention.type === "first_time";
  const streams = new StreamBuilder();
  for (const ref of data.chunksToRead) {
    const chunk = await data.load(ref, columns);
    const persons = chunk.persons;
    const timestamps = chunk.timestamps;
    const base = baseSelection(chunk, query, query.scanFrom);
    const starting = seriesSelection(chunk, base, start);
    for (let i = 0; i < starting.length; i++) {
      const row = starting[i]!;
      const at = timestamps[row]!;
      if (at < query.from) streams.push(persons[row]!, at, startFlag, beforeRange);
      else streams.push(persons[row]!, at, sameEvent ? startFlag | returnFlag : startFlag, buckets.bucketOf(at));
    }
    if (sameEvent) continue;
    const returning = seriesSelection(chunk, base, back);
    for (let i = 0; i < returning.length; i++) {
      const row = returning[i]!;
      const at = timestamps[row]!;
      if (at >= query.from) streams.push(persons[row]!, at, returnFlag, buckets.bucketOf(at));
    }
  }
  const { starts, flags, values } = streams.build();
  const periods = query.retention.periods;
  const sizes = new Array<number>(buckets.count).fill(0);
  const counts = Array.from({ length: buckets.count }, () => new Array<number>(periods).fill(0));
  // Each person's distinct cohort and return intervals, ascending (rows come in time order).
  const cohorts: number[] = [];
  const returns: number[] = [];
  for (let p = 0; p + 1 < starts.length; p++) {
    cohorts.length = 0;
    returns.length = 0;
    let seenStart = false;
    for (let i = starts[p]!; i < starts[p + 1]!; i++) {
      const bucket = values[i]!;
      const flag = flags[i]!;
      if ((flag & returnFlag) !== 0 && returns[returns.length - 1] !== bucket) returns.push(bucket);
      if ((flag & startFlag) !== 0 && (!firstTime || !seenStart)) {
        // The first start row is the person's first-ever start event.
        seenStart = true;
        if (bucket !== beforeRange && cohorts[cohorts.length - 1] !== bucket) cohorts.push(bucket);
      }
    }
    let next = 0;
    for (const c of cohorts) {
      sizes[c]!++;
      while (next < returns.length && returns[next]! < c) next++;
      for (let r = next; r < returns.length && returns[r]! - c < periods; r++) counts[c]![returns[r]! - c]!++;
    }
  }
  return retentionFrom(query, buckets.labels, sizes, counts);
}
