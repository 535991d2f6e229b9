// The SQL's bucket keys and labels against the executor's (engine/buckets.ts, time-zone.ts):
// DuckDB computes the key of instants every few minutes across spans that cross DST changes
// both ways, zones with half-hour offsets and half-hour DST, a skipped day, spans long enough
// for the offsets to nest, and spans starting before 1970 local; every key, label and slot
// must be the executor's.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BucketMap } from "../../../engine/buckets.ts";
import { bucketSlotsCte } from "../../../engine/sql/bucket-slots.ts";
import { DuckDbSession } from "../../../engine/sql/duckdb.ts";
import { bucketKeySql, bucketLabelSql, localMsSql, type LocalSpan } from "../../../engine/sql/local-time.ts";
import { bucketKey, bucketLabel, type BucketInterval } from "../../../engine/time-zone.ts";
import { ZoneOffsets } from "../../../engine/zone-offsets.ts";

let duck: DuckDbSession;
beforeAll(async () => {
  duck = await DuckDbSession.open(1);
});
afterAll(() => duck.close());

const minuteMs = 60_000;
/** Instants sampled per span: every `step` ms from `from`, plus each offset change and the instants around it. */
function instantsOf(span: LocalSpan, step: number): number[] {
  const instants = new Set<number>();
  for (let at = span.from; at < span.to; at += step) instants.add(at);
  for (const { start } of ZoneOffsets.of(span.timeZone).segments(span.from, span.to)) {
    for (const at of [start - 1, start, start + 1, start - 30 * minuteMs, start + 59 * minuteMs]) if (at >= span.from && at < span.to) instants.add(at);
  }
  return [...instants].sort((a, b) => a - b);
}

interface KeyRow {
  instant: bigint;
  key: number;
  label: string;
}

async function sqlKeys(span: LocalSpan, instants: number[]): Promise<Map<number, KeyRow>> {
  const rows = await duck.rowObjects<KeyRow>(
    [
      `SELECT instant, key, ${bucketLabelSql(span.interval, "key")} AS label FROM (`,
      `  SELECT instant, ${bucketKeySql(span, "t")} AS key FROM (SELECT instant, make_timestamptz(instant * 1000) AS t FROM (SELECT unnest($1::BIGINT[]) AS instant))`,
      ")",
    ].join("\n"),
    [`[${instants.join(",")}]`],
  );
  return new Map(rows.map((row) => [Number(row.instant), row]));
}

const spans: { name: string; span: LocalSpan; step: number }[] = [
  { name: "Paris days across the end of summer time", span: { interval: "day", timeZone: "Europe/Paris", from: Date.UTC(2026, 9, 20), to: Date.UTC(2026, 10, 3) }, step: 7 * minuteMs },
  { name: "New York hours across the start of summer time", span: { interval: "hour", timeZone: "America/New_York", from: Date.UTC(2026, 2, 7), to: Date.UTC(2026, 2, 10) }, step: 11 * minuteMs },
  { name: "Kolkata weeks (UTC+05:30)", span: { interval: "week", timeZone: "Asia/Kolkata", from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 3, 1) }, step: 37 * minuteMs },
  { name: "Lord Howe hours (half-hour DST)", span: { interval: "hour", timeZone: "Australia/Lord_Howe", from: Date.UTC(2026, 3, 3), to: Date.UTC(2026, 3, 6) }, step: 13 * minuteMs },
  { name: "Apia days across the skipped 30 December 2011", span: { interval: "day", timeZone: "Pacific/Apia", from: Date.UTC(2011, 11, 27), to: Date.UTC(2012, 0, 3) }, step: 17 * minuteMs },
  { name: "Paris months over twelve years (nested offsets)", span: { interval: "month", timeZone: "Europe/Paris", from: Date.UTC(2014, 0, 1), to: Date.UTC(2026, 0, 1) }, step: 997 * minuteMs },
  { name: "New York weeks from December 1969 (before 1970 local)", span: { interval: "week", timeZone: "America/New_York", from: Date.UTC(1969, 11, 1), to: Date.UTC(1970, 1, 1) }, step: 61 * minuteMs },
  { name: "New York days from December 1969", span: { interval: "day", timeZone: "America/New_York", from: Date.UTC(1969, 11, 20), to: Date.UTC(1970, 0, 10) }, step: 29 * minuteMs },
];

describe("bucket keys in SQL equal the executor's", () => {
  for (const { name, span, step } of spans) {
    test(name, async () => {
      const offsets = ZoneOffsets.of(span.timeZone);
      const instants = instantsOf(span, step);
      const keys = await sqlKeys(span, instants);
      const mismatches = instants.flatMap((at) => {
        const expectedKey = bucketKey(span.interval, at + offsets.offsetIn(at));
        const expected = bucketLabel(span.interval, expectedKey);
        const row = keys.get(at)!;
        return row.label === expected ? [] : [`${new Date(at).toISOString()}: ${row.label} != ${expected}`];
      });
      expect(mismatches).toEqual([]);
      expect(keys.size).toBe(instants.length);
    });
  }

  test("the offsets nest once a span has more than four of them, and stay one constant without a change", () => {
    expect(localMsSql({ interval: "day", timeZone: "UTC", from: Date.UTC(2000, 0, 1), to: Date.UTC(2030, 0, 1) })).toBe("epoch_ms(e.timestamp) + 0");
    expect(localMsSql({ interval: "day", timeZone: "Europe/Paris", from: Date.UTC(2026, 9, 20), to: Date.UTC(2026, 10, 3) })).toBe(
      "epoch_ms(e.timestamp) + CASE WHEN e.timestamp < TIMESTAMPTZ '2026-10-25 01:00:00+00' THEN 7200000 ELSE 3600000 END",
    );
    const long = localMsSql({ interval: "month", timeZone: "Europe/Paris", from: Date.UTC(2014, 0, 1), to: Date.UTC(2026, 0, 1) });
    expect(long.startsWith("epoch_ms(e.timestamp) + CASE WHEN e.timestamp < TIMESTAMPTZ '2019-10-27 01:00:00+00' THEN CASE WHEN")).toBe(true);
  });
});

describe("the buckets table", () => {
  const cases: { name: string; query: { interval: BucketInterval; timeZone: string; from: number; to: number } }[] = [
    { name: "hours skipped by the start of summer time are no bucket", query: { interval: "hour", timeZone: "America/New_York", from: Date.UTC(2026, 2, 8, 4), to: Date.UTC(2026, 2, 8, 10) } },
    { name: "the hour repeated at the end of summer time is one bucket", query: { interval: "hour", timeZone: "Europe/Paris", from: Date.UTC(2026, 9, 24, 22), to: Date.UTC(2026, 9, 25, 4) } },
    { name: "weeks", query: { interval: "week", timeZone: "Europe/Paris", from: Date.UTC(2026, 8, 7), to: Date.UTC(2026, 10, 2) } },
    { name: "months across a year", query: { interval: "month", timeZone: "Asia/Kolkata", from: Date.UTC(2025, 10, 1), to: Date.UTC(2026, 2, 1) } },
  ];
  for (const { name, query } of cases) {
    test(name, async () => {
      const rows = await duck.rowObjects<{ slot: number; label: string }>(
        `WITH ${bucketSlotsCte(query, query.from)} SELECT slot, ${bucketLabelSql(query.interval, "key")} AS label FROM buckets ORDER BY slot`,
      );
      expect(rows.map((row) => [Number(row.slot), row.label])).toEqual(new BucketMap(query).labels.map((label, slot) => [slot, label]));
    });
  }
});
