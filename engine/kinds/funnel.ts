// Funnels. Per person, events in time order (only events in the date range that pass the
// global filters). An attempt starts at an event of step 0 (unordered: of any step) at time s:
//   ordered    step k is the earliest step-k event later than step k-1 (a later millisecond)
//              and no later than s + window; other events may come between
//   strict     the same, and no event of any kind happened strictly between the two steps
//   unordered  steps in any order: every step with an event in [s, s + window] counts
// An exclusion (event, from_step, to_step) drops an attempt when the event happens after
// from_step's time and before to_step's (or up to s + window if to_step was not reached).
// Each person counts once, by the attempt reaching the most steps (then the earliest, then
// the smallest breakdown value); the breakdown value is that of the attempt's first event.
// A cohort breakdown has a row per cohort, of the persons in it (a person may be in several).
// Persons are not weighted by sampling.
import { absentValue, BreakdownValues, groupSlots, rankValues } from "../breakdown.ts";
import { quantileInPlace } from "../quantile.ts";
import type { LoadedChunk, QueryData } from "../query-data.ts";
import { baseSelection, columnsNeeded, eventCode, eventSelection } from "../selection.ts";
import { firstAfter, StreamBuilder, type PersonStreams } from "../person-streams.ts";
import type { Filter, Query } from "../ir/query.ts";

export interface FunnelStep {
  step: number;
  event: string;
  count: number;
  conversion_from_previous: number | null;
  conversion_from_first: number | null;
  median_seconds: number | null;
  average_seconds: number | null;
}

export interface FunnelBreakdown {
  breakdown_value: string | null;
  breakdown_other: boolean;
  steps: FunnelStep[];
}

export interface FunnelResult {
  kind: "funnel";
  order: string;
  window_seconds: number;
  steps: FunnelStep[];
  breakdowns?: FunnelBreakdown[];
}

/** Bit of exclusion i in a row's flags (steps take bits 0..19). */
const exclusionBit = (index: number) => 1 << (20 + index);

interface Attempt {
  /** The canonical person. */
  person: number;
  level: number;
  start: number;
  value: number;
  /** Time of each reached step, in step order (unordered: completion times sorted). */
  times: number[];
}

/** The chosen attempt of each person: level, step times, breakdown value id. */
function evaluateFunnel(query: Query, streams: PersonStreams, textOf: (value: number) => string | null): Attempt[] {
  const steps = query.series.length;
  const window = query.funnel.windowMs;
  const order = query.funnel.order;
  const exclusions = query.funnel.exclusions;
  const chosen: Attempt[] = [];
  const better = (a: Attempt, b: Attempt | null) => {
    if (!b) return true;
    if (a.level !== b.level) return a.level > b.level;
    if (a.start !== b.start) return a.start < b.start;
    const [ta, tb] = [textOf(a.value), textOf(b.value)];
    if (ta === tb) return false;
    if (ta === null) return false;
    if (tb === null) return true;
    return ta < tb;
  };
  const { times, flags, values, starts } = streams;
  // One scratch attempt; an Attempt is allocated only when it beats the person's best so far.
  const reached = new Float64Array(steps);
  const candidate = { level: 0, times: reached as ArrayLike<number> };
  for (let p = 0; p < streams.persons.length; p++) {
    const from = starts[p]!;
    const to = starts[p + 1]!;
    let best: Attempt | null = null;
    for (let i = from; i < to; i++) {
      const flag = flags[i]!;
      const isStart = order === "unordered" ? (flag & ((1 << steps) - 1)) !== 0 : (flag & 1) !== 0;
      if (!isStart) continue;
      const s = times[i]!;
      // Attempts come in time order: once one reached every step, later starts cannot beat it.
      if (best && best.level === steps && s > best.start) break;
      const deadline = s + window;
      let level = 0;
      if (order === "unordered") {
        for (let k = 0; k < steps; k++) {
          for (let j = firstAfter(times, from, to, s, true); j < to && times[j]! <= deadline; j++) {
            if ((flags[j]! & (1 << k)) !== 0) {
              reached[level++] = times[j]!;
              break;
            }
          }
        }
        reached.subarray(0, level).sort();
      } else {
        reached[level++] = s;
        for (let k = 1; k < steps; k++) {
          const previous = reached[k - 1]!;
          let found = -1;
          if (order === "ordered") {
            for (let j = firstAfter(times, from, to, previous); j < to && times[j]! <= deadline; j++) {
              if ((flags[j]! & (1 << k)) !== 0) {
                found = j;
                break;
              }
            }
          } else {
            const next = firstAfter(times, from, to, previous);
            if (next < to && times[next]! <= deadline) {
              for (let j = next; j < to && times[j] === times[next]; j++) {
                if ((flags[j]! & (1 << k)) !== 0) {
                  found = j;
                  break;
                }
              }
            }
          }
          if (found < 0) break;
          reached[level++] = times[found]!;
        }
      }
      if (best && (level < best.level || (level === best.level && s > best.start))) continue;
      candidate.level = level;
      if (order !== "unordered" && dropped(exclusions, candidate, deadline, times, flags, from, to)) continue;
      const attempt: Attempt = { person: streams.persons[p]!, level, start: s, value: values[i]!, times: Array.from(reached.subarray(0, level)) };
      if (better(attempt, best)) best = attempt;
    }
    if (best) chosen.push(best);
  }
  return chosen;
}

function dropped(
  exclusions: Query["funnel"]["exclusions"], attempt: { level: number; times: ArrayLike<number> }, deadline: number, times: Float64Array, flags: Uint32Array, from: number, to: number,
): boolean {
  for (let e = 0; e < exclusions.length; e++) {
    const { fromStep, toStep } = exclusions[e]!;
    if (attempt.level <= fromStep) continue;
    const after = attempt.times[fromStep]!;
    const reachedEnd = attempt.level > toStep;
    const before = reachedEnd ? attempt.times[toStep]! : deadline;
    for (let j = firstAfter(times, from, to, after); j < to; j++) {
      const time = times[j]!;
      if (reachedEnd ? time >= before : time > before) break;
      if ((flags[j]! & exclusionBit(e)) !== 0) return true;
    }
  }
  return false;
}

export function stepsOf(query: Query, attempts: Pick<Attempt, "level" | "times">[]): FunnelStep[] {
  const steps = query.series.length;
  // reached[k]: attempts that reached step k; gaps[k]: their seconds from step k - 1 to k, in attempt order.
  const reached = new Array<number>(steps).fill(0);
  for (const attempt of attempts) for (let k = 0; k < attempt.level; k++) reached[k]!++;
  const gaps = reached.map((count, k) => new Float64Array(k === 0 ? 0 : count));
  const filled = new Array<number>(steps).fill(0);
  for (const attempt of attempts) {
    for (let k = 1; k < attempt.level; k++) gaps[k]![filled[k]!++] = (attempt.times[k]! - attempt.times[k - 1]!) / 1000;
  }
  const first = attempts.length;
  return query.series.map((series, k) => {
    const count = reached[k]!;
    const previous = k === 0 ? 0 : reached[k - 1]!;
    const stepGaps = gaps[k]!;
    let sum = 0;
    for (const gap of stepGaps) sum += gap;
    return {
      step: k,
      event: series.event!,
      count,
      conversion_from_previous: k === 0 || previous === 0 ? null : count / previous,
      conversion_from_first: k === 0 || first === 0 ? null : count / first,
      median_seconds: quantileInPlace(stepGaps, 0.5),
      average_seconds: stepGaps.length === 0 ? null : sum / stepGaps.length,
    };
  });
}

/**
 * The step and exclusion bits of a chunk's rows: a step or exclusion without filters is a
 * table by event code (one lookup per row, no pass of its own); one with filters marks its
 * selected rows in `byRow`. A row's bits are byCode[event code] | byRow[row].
 */
function stepFlags(chunk: LoadedChunk, query: Query, base: Uint32Array): { byCode: Uint32Array; byRow: Uint32Array | null } {
  const byCode = new Uint32Array(chunk.text("event").words.length);
  let byRow: Uint32Array | null = null;
  const mark = (event: string | null, filters: Filter[], bit: number) => {
    if (event !== null && filters.length === 0) {
      const code = eventCode(chunk, event);
      if (code >= 0) byCode[code]! |= bit;
      return;
    }
    byRow ??= new Uint32Array(chunk.rows);
    const selection = eventSelection(chunk, base, event, filters);
    for (let i = 0; i < selection.length; i++) byRow[selection[i]!]! |= bit;
  };
  query.series.forEach((series, k) => mark(series.event, series.filters, 1 << k));
  query.funnel.exclusions.forEach((exclusion, e) => mark(exclusion.event, [], exclusionBit(e)));
  return { byCode, byRow };
}

export async function funnel(data: QueryData): Promise<FunnelResult> {
  const query = data.query;
  const { columns, eventProperties } = columnsNeeded(query);
  await data.prepare(eventProperties);
  const breakdown = query.breakdown;
  const values = new BreakdownValues();
  const builder = new StreamBuilder();
  const strict = query.funnel.order === "strict";
  for (const ref of data.chunksToRead) {
    const chunk = await data.load(ref, columns);
    const base = baseSelection(chunk, query);
    if (base.length === 0) continue;
    const { byCode, byRow } = stepFlags(chunk, query, base);
    const events = chunk.text("event").codes;
    const rowValues = breakdown && breakdown.type !== "cohort" ? values.rowValues(chunk, breakdown) : null;
    const persons = chunk.persons;
    const timestamps = chunk.timestamps;
    for (let i = 0; i < base.length; i++) {
      const row = base[i]!;
      const flags = byCode[events[row]!]! | (byRow === null ? 0 : byRow[row]!);
      if (flags === 0 && !strict) continue;
      builder.push(persons[row]!, timestamps[row]!, flags, rowValues ? rowValues[row]! : absentValue);
    }
  }
  const attempts = evaluateFunnel(query, builder.build(), (value) => values.label(value));
  const result: FunnelResult = { kind: "funnel", order: query.funnel.order, window_seconds: query.funnel.windowMs / 1000, steps: stepsOf(query, attempts) };
  if (breakdown?.type === "cohort") {
    // A person's attempt counts in every cohort the person is in.
    result.breakdowns = breakdown.cohortIds.map((cohortId) => {
      const members = data.cohort(cohortId);
      return { breakdown_value: cohortId, breakdown_other: false, steps: stepsOf(query, attempts.filter((attempt) => members.has(attempt.person))) };
    });
  } else if (breakdown) {
    const volumes = new Map<number, number>();
    for (const attempt of attempts) volumes.set(attempt.value, (volumes.get(attempt.value) ?? 0) + 1);
    const ranked = rankValues(volumes, breakdown.limit, (value) => values.label(value));
    const slotOf = groupSlots(ranked.top, ranked.top.length);
    const groups: Attempt[][] = Array.from({ length: ranked.top.length + 1 }, () => []);
    for (const attempt of attempts) groups[slotOf(attempt.value)]!.push(attempt);
    result.breakdowns = ranked.top.map((value, slot) => ({ breakdown_value: values.label(value), breakdown_other: false, steps: stepsOf(query, groups[slot]!) }));
    if (ranked.hasOther) result.breakdowns.push({ breakdown_value: null, breakdown_other: true, steps: stepsOf(query, groups[ranked.top.length]!) });
  }
  return result;
}
