// Stickiness: how many persons did the event (series[0], with its filters) in exactly N of
// the range's intervals, for N = 1 .. the number of intervals; with `cumulative`, in N or
// more. Intervals are the project's local hours, days, weeks or months. Persons are not
// weighted by sampling.
import { BucketMap } from "../buckets.ts";
import { bitCount, personSlotPasses } from "../person-slots.ts";
import type { QueryData } from "../query-data.ts";
import { baseSelection, columnsNeeded, seriesSelection } from "../selection.ts";

export interface StickinessResult {
  kind: "stickiness";
  interval: string;
  time_zone: string;
  cumulative: boolean;
  /** persons[i]: persons active in exactly (or, cumulative, at least) i + 1 intervals. */
  intervals: number[];
  persons: number[];
}

/** The result from the number of persons active in exactly n intervals (index n - 1). */
export function stickinessFrom(data: Pick<QueryData, "query">, exactly: number[], intervalCount: number): StickinessResult {
  const query = data.query;
  const persons = exactly.slice(0, intervalCount);
  if (query.stickiness.cumulative) for (let i = persons.length - 2; i >= 0; i--) persons[i]! += persons[i + 1]!;
  return {
    kind: "stickiness",
    interval: query.interval,
    time_zone: query.timeZone,
    cumulative: query.stickiness.cumulative,
    intervals: persons.map((_, i) => i + 1),
    persons,
  };
}

export async function stickiness(data: QueryData): Promise<StickinessResult> {
  const query = data.query;
  const { columns, eventProperties } = columnsNeeded(query);
  await data.prepare(eventProperties);
  const buckets = new BucketMap(query);
  const series = query.series[0]!;
  const exactly = new Array<number>(buckets.count).fill(0);
  for (const pass of personSlotPasses(data.source.persons.canonical.length, buckets.count, data.personSlotBytesMax)) {
    for (const ref of data.chunksToRead) {
      const chunk = await data.load(ref, columns);
      const selection = seriesSelection(chunk, baseSelection(chunk, query), series);
      const persons = chunk.persons;
      const timestamps = chunk.timestamps;
      for (let i = 0; i < selection.length; i++) {
        const row = selection[i]!;
        if (pass.covers(persons[row]!)) pass.add(persons[row]!, buckets.bucketOf(timestamps[row]!));
      }
    }
    pass.forEachPerson((_, bits, offset) => {
      let intervals = 0;
      for (let w = 0; w < pass.words; w++) intervals += bitCount(bits[offset + w]!);
      exactly[intervals - 1]!++;
    });
  }
  return stickinessFrom(data, exactly, buckets.count);
}
