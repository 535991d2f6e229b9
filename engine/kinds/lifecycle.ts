// Lifecycle. For each interval of the range, the persons who did series[0] in it are
//   new           created (first seen, see the person store) in this interval
//   returning     not new, and also active in the previous interval
//   resurrecting  not new, and not active in the previous interval
// and the persons active in the previous interval but not in this one are dormant (a negative
// count). The interval before the range's first is read too, so the first interval has a
// previous one. Persons are not weighted by sampling.
import { BucketMap } from "../buckets.ts";
import type { QueryData } from "../query-data.ts";
import { baseSelection, columnsNeeded, seriesSelection } from "../selection.ts";
import { personSlotPasses } from "../person-slots.ts";
import type { Query } from "../ir/query.ts";
import { bucketStartAt } from "../time-zone.ts";

export const lifecycleStatuses = ["new", "returning", "resurrecting", "dormant"] as const;
export type LifecycleStatus = (typeof lifecycleStatuses)[number];

export interface LifecycleResult {
  kind: "lifecycle";
  interval: string;
  time_zone: string;
  buckets: string[];
  /** One row per status, in the order of lifecycleStatuses; dormant values are negative. */
  rows: { status: LifecycleStatus; values: number[] }[];
}

/** The result from counts[status][bucket] (persons; dormant as a positive count). */
export function lifecycleFrom(query: Query, labels: string[], counts: number[][]): LifecycleResult {
  return {
    kind: "lifecycle",
    interval: query.interval,
    time_zone: query.timeZone,
    buckets: labels,
    rows: lifecycleStatuses.map((status, s) => ({ status, values: counts[s]!.map((count) => (status === "dormant" && count !== 0 ? -count : count)) })),
  };
}

/** The instant the range's first interval starts (the previous interval ends there). */
export const firstIntervalStart = (query: Query) => bucketStartAt(query.interval, query.timeZone, query.from);

export async function lifecycle(data: QueryData): Promise<LifecycleResult> {
  const query = data.query;
  const { columns, eventProperties } = columnsNeeded(query);
  await data.prepare(eventProperties);
  // Slot 0 is the interval before the range; slot s is the range's interval s - 1.
  const slots = new BucketMap({ ...query, from: query.scanFrom });
  const rangeStart = firstIntervalStart(query);
  const series = query.series[0]!;
  const created = data.source.persons.createdTimes();
  const createdSlot = (person: number) => {
    const at = created[person]!;
    return at >= query.scanFrom && at < query.to ? slots.bucketOf(at) : -1;
  };
  const counts = lifecycleStatuses.map(() => new Array<number>(slots.count - 1).fill(0));
  const [fresh, returning, resurrecting, dormant] = counts as [number[], number[], number[], number[]];
  for (const pass of personSlotPasses(data.source.persons.canonical.length, slots.count, data.personSlotBytesMax)) {
    for (const ref of data.chunksToRead) {
      const chunk = await data.load(ref, columns);
      const persons = chunk.persons;
      const timestamps = chunk.timestamps;
      const selection = seriesSelection(chunk, baseSelection(chunk, query, query.scanFrom), series);
      for (let i = 0; i < selection.length; i++) {
        const row = selection[i]!;
        const at = timestamps[row]!;
        // The first interval may start before `from`: its part before `from` is not read.
        if (pass.covers(persons[row]!) && (at < rangeStart || at >= query.from)) pass.add(persons[row]!, slots.bucketOf(at));
      }
    }
    pass.forEachPerson((person, bits, offset) => {
      const born = createdSlot(person);
      let previous = -2;
      for (let w = 0; w < pass.words; w++) {
        for (let word = bits[offset + w]!; word !== 0; word &= word - 1) {
          const slot = w * 32 + 31 - Math.clz32(word & -word);
          if (previous >= 0 && slot > previous + 1) dormant[previous]!++;
          if (slot > 0) {
            if (slot === born) fresh[slot - 1]!++;
            else if (slot === previous + 1) returning[slot - 1]!++;
            else resurrecting[slot - 1]!++;
          }
          previous = slot;
        }
      }
      if (previous + 1 < slots.count) dormant[previous]!++;
    });
  }
  return lifecycleFrom(query, slots.labels.slice(1), counts);
}
