// ZoneOffsets finds a zone's offsets a year at a time: every lookup must give what Intl gives
// for that instant, and changesWithin must see every change, including ones a few weeks apart
// (Casablanca's Ramadan pause), of 30 minutes (Lord Howe), of a whole day (Apia, 2011) and
// around the turn of a year.
import { describe, expect, test } from "bun:test";
import { offsetAt } from "../../engine/time-zone.ts";
import { ZoneOffsets } from "../../engine/zone-offsets.ts";
import { seededRandom } from "./dataset.ts";
import { countCalendarCalls } from "./calendar-calls.ts";

const minuteMs = 60_000;
const hourMs = 3_600_000;
const dayMs = 86_400_000;

/** The instants where `zone`'s offset changes in [from, to), found by Intl hour by hour, then minute by minute. */
function changesByIntl(zone: string, from: number, to: number): number[] {
  const changes: number[] = [];
  for (let at = from; at < to; at += hourMs) {
    if (offsetAt(zone, at) === offsetAt(zone, at + hourMs)) continue;
    let minute = at + minuteMs;
    while (offsetAt(zone, minute) === offsetAt(zone, at)) minute += minuteMs;
    changes.push(minute);
  }
  return changes;
}

const cases = [
  { zone: "Europe/Paris", from: Date.UTC(2021, 0, 1), to: Date.UTC(2025, 0, 1) },
  { zone: "America/New_York", from: Date.UTC(2021, 0, 1), to: Date.UTC(2025, 0, 1) },
  { zone: "Africa/Casablanca", from: Date.UTC(2021, 0, 1), to: Date.UTC(2025, 0, 1) },
  { zone: "Australia/Lord_Howe", from: Date.UTC(2021, 0, 1), to: Date.UTC(2025, 0, 1) },
  { zone: "Pacific/Chatham", from: Date.UTC(2021, 0, 1), to: Date.UTC(2025, 0, 1) },
  { zone: "Asia/Kolkata", from: Date.UTC(2021, 0, 1), to: Date.UTC(2025, 0, 1) },
  { zone: "Pacific/Apia", from: Date.UTC(2011, 0, 1), to: Date.UTC(2013, 0, 1) },
  { zone: "UTC", from: Date.UTC(2021, 0, 1), to: Date.UTC(2025, 0, 1) },
];

describe("zone offsets", () => {
  for (const { zone, from, to } of cases) {
    test(`${zone}: lookups have Intl's offset and changesWithin sees exactly Intl's changes`, () => {
      const offsets = ZoneOffsets.of(zone);
      const changes = changesByIntl(zone, from, to);
      const random = seededRandom(zone.length);
      const instants: number[] = [];
      for (let index = 0; index < 2000; index++) instants.push(from + Math.floor(random() * (to - from)));
      for (const change of changes) instants.push(change - 1, change, change + 1, change - hourMs, change + hourMs);
      for (let year = new Date(from).getUTCFullYear(); year <= new Date(to).getUTCFullYear(); year++) instants.push(Date.UTC(year, 0, 1) - 1, Date.UTC(year, 0, 1));
      // Shuffled, so lookups jump between years and spans as a query's chunks do.
      instants.sort(() => random() - 0.5);
      for (const instant of instants) expect([instant, offsets.offsetIn(instant)]).toEqual([instant, offsetAt(zone, instant)]);

      const spans: [number, number][] = [];
      for (const change of changes) spans.push([change - 1, change], [change, change + dayMs], [change - dayMs, change - 1]);
      for (let index = 0; index < 1000; index++) {
        const low = from + Math.floor(random() * (to - from - 9 * dayMs));
        spans.push([low, low + Math.floor(random() * 8 * dayMs)]);
      }
      for (const [low, high] of spans) {
        const expected = changes.some((change) => change > low && change <= high);
        expect([low, high, offsets.changesWithin(low, high)]).toEqual([low, high, expected]);
      }
    });
  }

  test("the same zone's offsets are shared, and a year once computed asks Intl nothing more", () => {
    expect(ZoneOffsets.of("Europe/Paris")).toBe(ZoneOffsets.of("Europe/Paris"));
    ZoneOffsets.of("Europe/Paris").offsetIn(Date.UTC(2015, 5, 1));
    const calls = countCalendarCalls(() => {
      for (let day = 0; day < 365; day++) ZoneOffsets.of("Europe/Paris").offsetIn(Date.UTC(2015, 0, 1) + day * dayMs);
    });
    expect(calls).toBe(0);
  });
});
