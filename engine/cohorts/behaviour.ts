// Behavioural criteria over the events of the snapshot, one pass over the chunks per event name
// (every criterion naming that event is served by the same pass) and one per group type:
//   performed E {gte|lte|eq} N in the last D days   E's rows in [start(D), now) per person
//   not_performed E in the last D days              no such row
//   first_performed E in the last D days            the person's earliest E (ever) is in [start(D), now)
//   group (type, key)                               any row (ever) linked to that group
// Rows are counted as stored, not weighted by sampling: a weight estimates a population, not
// what one person did. A count is per person after merges, so a person's events under every
// distinct id count together.
import { groupColumn } from "../../storage/event-columns.ts";
import type { FirstPerformedCriterion, GroupCriterion, NotPerformedCriterion, PerformedCriterion } from "./definition.ts";
import { ScanBudget } from "./event-scan.ts";
import { PersonSet } from "./person-set.ts";

export type EventCriterion = PerformedCriterion | NotPerformedCriterion | FirstPerformedCriterion;

const countTests: Record<PerformedCriterion["count_operator"], (count: number, wanted: number) => boolean> = {
  gte: (count, wanted) => count >= wanted,
  lte: (count, wanted) => count <= wanted,
  eq: (count, wanted) => count === wanted,
};

/** Each person's rows of one event per window start, and the earliest row ever when asked. */
interface EventTally {
  /** Window start (epoch ms) -> rows per person in [start, now). */
  counts: Map<number, Int32Array>;
  /** Earliest row per person (Infinity: none), or null when no criterion needs it. */
  first: Float64Array | null;
}

/** Criteria of one event, counted in one pass; `windowStart(days)` is where "the last D days" start. */
export async function eventCriteriaSets(
  budget: ScanBudget, size: number, event: string, criteria: EventCriterion[], windowStart: (days: number) => number,
): Promise<Map<EventCriterion, PersonSet>> {
  const needsFirst = criteria.some((criterion) => criterion.type === "first_performed");
  const starts = [...new Set(criteria.filter((criterion) => criterion.type !== "first_performed").map((criterion) => windowStart(criterion.days)))];
  const tally: EventTally = { counts: new Map(starts.map((start) => [start, new Int32Array(size)])), first: needsFirst ? new Float64Array(size).fill(Infinity) : null };
  const from = needsFirst ? Number.NEGATIVE_INFINITY : Math.min(...starts);
  const windowStarts = [...tally.counts.keys()];
  const windowCounts = [...tally.counts.values()];
  const now = budget.now;
  await budget.forEachChunk(budget.chunksFor(from, new Set([event])), ["event"], ({ timestamps, persons, text }) => {
    const events = text("event");
    const code = events.words.indexOf(event);
    if (code < 0) return;
    const { codes } = events;
    const { first } = tally;
    for (let row = 0; row < codes.length; row++) {
      if (codes[row] !== code) continue;
      const at = timestamps[row]!;
      const person = persons[row]!;
      if (at >= now || person >= size) continue;
      for (let window = 0; window < windowStarts.length; window++) if (at >= windowStarts[window]!) windowCounts[window]![person]!++;
      if (first !== null && at < first[person]!) first[person] = at;
    }
  });
  return new Map(criteria.map((criterion) => [criterion, criterionSet(criterion, tally, size, windowStart(criterion.days), now)]));
}

function criterionSet(criterion: EventCriterion, tally: EventTally, size: number, start: number, now: number): PersonSet {
  const set = new PersonSet(size);
  if (criterion.type === "first_performed") {
    const first = tally.first!;
    for (let person = 0; person < size; person++) if (first[person]! >= start && first[person]! < now) set.add(person);
    return set;
  }
  const counts = tally.counts.get(start)!;
  if (criterion.type === "not_performed") {
    for (let person = 0; person < size; person++) if (counts[person] === 0) set.add(person);
    return set;
  }
  const test = countTests[criterion.count_operator];
  const wanted = criterion.count;
  for (let person = 0; person < size; person++) if (test(counts[person]!, wanted)) set.add(person);
  return set;
}

/** Group criteria of one group type, in one pass over every event (any time before now). */
export async function groupCriteriaSets(budget: ScanBudget, size: number, groupTypeIndex: number, criteria: GroupCriterion[]): Promise<Map<GroupCriterion, PersonSet>> {
  const sets = criteria.map(() => new PersonSet(size));
  const column = groupColumn(groupTypeIndex);
  await budget.forEachChunk(budget.chunksFor(Number.NEGATIVE_INFINITY, null), [column], ({ timestamps, persons, text }) => {
    const groups = text(column);
    // Which criteria each of the chunk's group keys serves (a key may be named twice).
    const criteriaOfCode = groups.words.map((word) => criteria.flatMap((criterion, index) => (criterion.group_key === word ? [index] : [])));
    const { codes } = groups;
    for (let row = 0; row < codes.length; row++) {
      const code = codes[row]!;
      if (code < 0 || criteriaOfCode[code]!.length === 0) continue;
      const person = persons[row]!;
      if (timestamps[row]! >= budget.now || person >= size) continue;
      for (const index of criteriaOfCode[code]!) sets[index]!.add(person);
    }
  });
  return new Map(criteria.map((criterion, index) => [criterion, sets[index]!]));
}
