// Per-person event streams for the kinds that follow people through time (funnels,
// retention, lifecycle, stickiness, paths): the rows a kind cares about are gathered from
// every chunk into typed arrays (canonical person, time, flags, a value id), then grouped by
// person with a counting sort over the dense person ids and ordered by time within each
// person. Parts are already sorted by (person, timestamp), so most runs need no reordering.

export class StreamBuilder {
  private persons = new Int32Array(1024);
  private times = new Float64Array(1024);
  private flags = new Uint32Array(1024);
  private values = new Int32Array(1024);
  length = 0;

  push(person: number, time: number, flags: number, value: number): void {
    if (this.length === this.persons.length) this.grow();
    this.persons[this.length] = person;
    this.times[this.length] = time;
    this.flags[this.length] = flags;
    this.values[this.length] = value;
    this.length++;
  }

  private grow(): void {
    const size = this.persons.length * 2;
    const grow = <T extends Int32Array | Float64Array | Uint32Array>(old: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(old);
      return next;
    };
    this.persons = grow(this.persons, (n) => new Int32Array(n));
    this.times = grow(this.times, (n) => new Float64Array(n));
    this.flags = grow(this.flags, (n) => new Uint32Array(n));
    this.values = grow(this.values, (n) => new Int32Array(n));
  }

  /** The rows grouped by person (ascending) and ordered by time within each person. */
  build(): PersonStreams {
    const n = this.length;
    let maxPerson = -1;
    for (let i = 0; i < n; i++) if (this.persons[i]! > maxPerson) maxPerson = this.persons[i]!;
    const counts = new Int32Array(maxPerson + 2);
    for (let i = 0; i < n; i++) counts[this.persons[i]! + 1]!++;
    for (let p = 1; p < counts.length; p++) counts[p]! += counts[p - 1]!;
    const order = new Int32Array(n);
    const next = counts.slice(0, maxPerson + 1);
    for (let i = 0; i < n; i++) order[next[this.persons[i]!]!++] = i;
    const times = new Float64Array(n);
    const flags = new Uint32Array(n);
    const values = new Int32Array(n);
    const starts = new Int32Array(maxPerson + 2);
    const persons = new Int32Array(maxPerson + 1);
    let streams = 0;
    for (let p = 0; p <= maxPerson; p++) {
      const start = counts[p]!;
      const end = counts[p + 1]!;
      if (start === end) continue;
      sortRunByTime(order, start, end, this.times);
      persons[streams] = p;
      starts[streams++] = start;
    }
    for (let i = 0; i < n; i++) {
      const row = order[i]!;
      times[i] = this.times[row]!;
      flags[i] = this.flags[row]!;
      values[i] = this.values[row]!;
    }
    starts[streams] = n;
    return { persons: persons.subarray(0, streams), starts: starts.subarray(0, streams + 1), times, flags, values };
  }
}

/** Orders order[start..end) by time (stable; insertion sort when nearly sorted, else a full sort). */
function sortRunByTime(order: Int32Array, start: number, end: number, times: Float64Array): void {
  let inversions = 0;
  for (let i = start + 1; i < end; i++) if (times[order[i]!]! < times[order[i - 1]!]!) inversions++;
  if (inversions === 0) return;
  if (inversions < 32) {
    for (let i = start + 1; i < end; i++) {
      const row = order[i]!;
      const time = times[row]!;
      let j = i - 1;
      while (j >= start && times[order[j]!]! > time) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = row;
    }
    return;
  }
  const run = Array.from(order.subarray(start, end));
  run.sort((a, b) => times[a]! - times[b]! || a - b);
  order.set(run, start);
}

/** Person p = persons[k] owns rows starts[k] .. starts[k + 1] - 1, in time order. */
export interface PersonStreams {
  persons: Int32Array;
  starts: Int32Array;
  times: Float64Array;
  flags: Uint32Array;
  values: Int32Array;
}

/** The first index in sorted `times[from..to)` whose time is > `after` (or >= when `inclusive`), or `to`. */
export function firstAfter(times: Float64Array, from: number, to: number, after: number, inclusive = false): number {
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (inclusive ? times[middle]! < after : times[middle]! <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}
