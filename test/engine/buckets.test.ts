// BucketMap.rowBuckets: for a span with at most two boundaries and one offset it compares
// integers instead of doing the zone arithmetic per row; both must give every row the same bucket.
import { describe, expect, test } from "bun:test";
import { BucketMap } from "../../engine/buckets.ts";
import type { BucketInterval } from "../../engine/time-zone.ts";
import { seededRandom } from "./dataset.ts";

const dayMs = 86_400_000;
const from = Date.parse("2026-09-28T00:00:00Z");
const to = Date.parse("2026-11-03T00:00:00Z");

/** Each row's bucket the slow way: the zone's offset and calendar per instant. */
const expectedBuckets = (map: BucketMap, instants: Float64Array) => Array.from(instants, (instant) => map.bucketOf(instant));

const quarterHourMs = 15 * 60_000;

/**
 * Random instants of [low, high], its edges, and every quarter hour in it with the millisecond
 * before and after: every zone's local midnight (and hour) falls on a quarter hour, so each
 * bucket boundary inside the span is tested on both sides.
 */
function randomInstants(random: () => number, low: number, high: number, count: number): Float64Array {
  const instants = [low, high];
  for (let index = 0; index < count; index++) instants.push(low + Math.floor(random() * (high - low + 1)));
  for (let at = Math.ceil(low / quarterHourMs) * quarterHourMs; at <= high; at += quarterHourMs) {
    for (const instant of [at - 1, at, at + 1]) if (instant >= low && instant <= high) instants.push(instant);
  }
  return Float64Array.from(instants);
}

describe("row buckets of a chunk", () => {
  const cases: { zone: string; interval: BucketInterval }[] = [
    { zone: "Europe/Paris", interval: "day" },
    { zone: "Europe/Paris", interval: "week" },
    { zone: "Europe/Paris", interval: "month" },
    { zone: "Europe/Paris", interval: "hour" },
    { zone: "America/Sao_Paulo", interval: "day" },
    { zone: "Asia/Kolkata", interval: "day" },
    { zone: "Pacific/Chatham", interval: "day" },
    { zone: "UTC", interval: "day" },
  ];
  for (const { zone, interval } of cases) {
    test(`${zone}, ${interval}: every UTC day of the range (DST change included) and longer spans give the per-row buckets`, () => {
      const map = new BucketMap({ interval, timeZone: zone, from, to });
      const random = seededRandom(5);
      const spans: [number, number][] = [];
      for (let day = from; day < to; day += dayMs) spans.push([day, day + dayMs - 1]);
      spans.push([from, from + 3 * dayMs], [from + 5 * dayMs + 3_600_000, from + 6 * dayMs + 7_200_000], [from, to - 1]);
      for (const [low, high] of spans) {
        const instants = randomInstants(random, low, high, 400);
        const all = Uint32Array.from(instants, (_, row) => row);
        const out = new Int32Array(instants.length);
        expect(Array.from(map.rowBuckets(instants, all, low, high, out))).toEqual(expectedBuckets(map, instants));
      }
    });
  }

  test("only the selected rows are needed when the span is long: each selected row gets its bucket", () => {
    const map = new BucketMap({ interval: "day", timeZone: "Europe/Paris", from, to });
    const instants = randomInstants(seededRandom(6), from, to - 1, 1000);
    const selection = Uint32Array.from({ length: 500 }, (_, i) => i * 2);
    const out = map.rowBuckets(instants, selection, from, to - 1, new Int32Array(instants.length));
    expect(Array.from(selection, (row) => out[row])).toEqual(Array.from(selection, (row) => map.bucketOf(instants[row]!)));
  });
});
