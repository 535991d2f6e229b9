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
import { personSlotPasses } from "../person-slots.ts";
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

/**
 * Each person's intervals as bits of one PersonSlotPass: slot 0 is "a start event before the
 * range" (first-time retention only), slots 1 .. count the intervals with a start event, and
 * slots count + 1 .. 2 count the intervals with a return event. Retention needs only these
 * sets, not each event in time order, so no per-person stream is gathered or sorted.
 */
const beforeRangeSlot = 0;

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
  // Without a return event of its own, each start row is also a return row.
  const sameEvent = query.series.length === 1;
  const count = buckets.count;
  const periods = query.retention.periods;
  const firstTime = query.retention.type === "first_time";
  const sizes = new Array<number>(count).fill(0);
  const counts = Array.from({ length: count }, () => new Array<number>(periods).fill(0));
  const cohorts: number[] = [];
  for (const pass of personSlotPasses(data.source.persons.canonical.length, 2 * count + 1, data.personSlotBytesMax)) {
    for (const ref of data.chunksToRead) {
      const chunk = await data.load(ref, columns);
      const persons = chunk.persons;
      const timestamps = chunk.timestamps;
      const base = baseSelection(chunk, query, query.scanFrom);
      const starting = seriesSelection(chunk, base, start);
      for (let i = 0; i < starting.length; i++) {
        const row = starting[i]!;
        const person = persons[row]!;
        if (!pass.covers(person)) continue;
        const at = timestamps[row]!;
        if (at < query.from) pass.add(person, beforeRangeSlot);
        else {
          const bucket = buckets.bucketOf(at);
          pass.add(person, 1 + bucket);
          if (sameEvent) pass.add(person, 1 + count + bucket);
        }
      }
      if (sameEvent) continue;
      const returning = seriesSelection(chunk, base, back);
      for (let i = 0; i < returning.length; i++) {
        const row = returning[i]!;
        const person = persons[row]!;
        const at = timestamps[row]!;
        if (at >= query.from && pass.covers(person)) pass.add(person, 1 + count + buckets.bucketOf(at));
      }
    }
    pass.forEachPerson((_, bits, offset) => {
      const has = (slot: number) => (bits[offset + (slot >>> 5)]! & (1 << (slot & 31))) !== 0;
      cohorts.length = 0;
      for (let c = 0; c < count; c++) {
        if (!has(1 + c)) continue;
        cohorts.push(c);
        // First-time: only the first-ever start counts, and one before the range puts the person in no cohort.
        if (firstTime) break;
      }
      if (firstTime && has(beforeRangeSlot)) return;
      for (const c of cohorts) {
        sizes[c]!++;
        const last = Math.min(count, c + periods);
        for (let r = c; r < last; r++) if (has(1 + count + r)) counts[c]![r - c]!++;
      }
    });
  }
  return retentionFrom(query, buckets.labels, sizes, counts);
}
