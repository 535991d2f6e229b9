// Date expressions and the bucket bound: a range's bucket count is checked with arithmetic,
// so a range of any length is judged at once (it was listed bucket by bucket: 1900-9999 by
// day held the process for 11 s), and every expression either names an instant in 1970-9999
// or is an InvalidQueryError (a -99999y was a RangeError, answered 500).
import { describe, expect, test } from "bun:test";
import { InvalidQueryError, validateQuery } from "../../../engine/ir/validate.ts";
import { intervalBucketsMax } from "../../../engine/ir/schema.ts";
import { countCalendarCalls } from "../calendar-calls.ts";
import { seededRandom } from "../dataset.ts";

const now = Date.parse("2026-11-27T15:04:05.678Z");
const document = (from: string, to: string | undefined, interval = "day") => ({
  ir_version: 1,
  date_range: to === undefined ? { from } : { from, to },
  insight: { kind: "trends", interval, series: [{ event: "x" }] },
});

/** The message validation throws, or "ok" with the range as ISO text. */
function verdict(from: string, to: string | undefined, interval = "day", zone = "Europe/Berlin"): string {
  try {
    const query = validateQuery(document(from, to, interval), zone, now);
    return `ok ${new Date(query.from).toISOString()} ${new Date(query.to).toISOString()}`;
  } catch (error) {
    if (error instanceof InvalidQueryError) return error.message;
    throw error;
  }
}

describe("date range bounds", () => {
  test("ranges of centuries are refused with the count of intervals, asking Intl no more than for a few years", () => {
    const cases: [string, string | undefined, string, string][] = [
      ["1970-01-01", "9999-12-31", "day", "/insight/interval: the range has 2932897 day intervals; at most 10000 (use a longer interval or a shorter range)"],
      ["1970-01-01", "9999-12-31", "week", "/insight/interval: the range has 418986 week intervals; at most 10000 (use a longer interval or a shorter range)"],
      ["1970-01-01", "9999-12-31", "month", "/insight/interval: the range has 96360 month intervals; at most 10000 (use a longer interval or a shorter range)"],
      ["1970-01-01", "9999-12-31", "hour", "/insight/interval: the range has 70389528 hour intervals; at most 10000 (use a longer interval or a shorter range)"],
      ["1900-01-01", "9999-12-31", "day", '/date_range/from: "1900-01-01" is before 1970-01-01, the earliest date a query can name'],
      ["-7000y", undefined, "day", '/date_range/from: "-7000y" is before 1970-01-01, the earliest date a query can name'],
    ];
    for (const [from, to, interval, message] of cases) {
      let answer = "";
      // A year's offsets take about 365 lookups: a few years' worth at most, whatever the range.
      const calls = countCalendarCalls(() => (answer = verdict(from, to, interval, "America/Chicago")));
      expect([answer, calls < 4 * 400]).toEqual([message, true]);
    }
  });

  test("the bucket bound at its edge: 10,000 days, weeks, months and hours pass, one more does not", () => {
    expect(verdict("2000-01-01", "2027-05-18")).toBe("ok 1999-12-31T23:00:00.000Z 2027-05-18T22:00:00.000Z");
    expect(verdict("2000-01-01", "2027-05-19")).toBe(`/insight/interval: the range has ${intervalBucketsMax + 1} day intervals; at most 10000 (use a longer interval or a shorter range)`);
    expect(verdict("1970-01-01", "2803-04-30", "month")).toBe("ok 1969-12-31T23:00:00.000Z 2803-04-30T22:00:00.000Z");
    expect(verdict("1970-01-01", "2803-05-01", "month")).toBe("/insight/interval: the range has 10001 month intervals; at most 10000 (use a longer interval or a shorter range)");
    expect(verdict("2026-03-01T00:00:00Z", "2027-04-21T16:00:00Z", "hour", "UTC")).toBe("ok 2026-03-01T00:00:00.000Z 2027-04-21T16:00:00.000Z");
    expect(verdict("2026-03-01T00:00:00Z", "2027-04-21T16:00:01Z", "hour", "UTC")).toBe("/insight/interval: the range has 10001 hour intervals; at most 10000 (use a longer interval or a shorter range)");
  });

  test("every date expression out of 1970-9999 is an invalid_query naming the side", () => {
    const cases: [string, string | undefined, string][] = [
      ["-99999y", undefined, '/date_range/from: "-99999y" is before 1970-01-01, the earliest date a query can name'],
      ["-99999m", undefined, '/date_range/from: "-99999m" is before 1970-01-01, the earliest date a query can name'],
      ["-99999w", undefined, '/date_range/from: "-99999w" is before 1970-01-01, the earliest date a query can name'],
      ["-99999d", undefined, '/date_range/from: "-99999d" is before 1970-01-01, the earliest date a query can name'],
      ["0000-01-01", undefined, '/date_range/from: "0000-01-01" is before 1970-01-01, the earliest date a query can name'],
      ["0050-06-01T00:00:00Z", undefined, '/date_range/from: "0050-06-01T00:00:00Z" is before 1970-01-01, the earliest date a query can name'],
      ["1969-12-31", undefined, '/date_range/from: "1969-12-31" is before 1970-01-01, the earliest date a query can name'],
      ["-1d", "-99999y", '/date_range/to: "-99999y" is before 1970-01-01, the earliest date a query can name'],
      ["1970-01-01", "1970-01-02", "ok 1969-12-31T23:00:00.000Z 1970-01-02T23:00:00.000Z"],
      ["9999-12-30", "9999-12-31", "ok 9999-12-29T23:00:00.000Z 9999-12-31T23:00:00.000Z"],
      ["-99999h", undefined, "ok 2015-07-02T00:04:05.678Z 2026-11-27T15:04:05.678Z"],
    ];
    for (const [from, to, message] of cases) expect([from, to, verdict(from, to, "month")]).toEqual([from, to, message]);
  });

  test("fuzz: 5,000 random date expressions each give a range or an invalid_query, never another error", () => {
    const random = seededRandom(34);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const digits = (count: number) => Array.from({ length: count }, () => Math.floor(random() * 10)).join("");
    const pad = (value: number, width: number) => String(value).padStart(width, "0");
    const generators: (() => string)[] = [
      () => `-${digits(1 + Math.floor(random() * 5))}${pick(["h", "d", "w", "m", "y"])}`,
      () => `${digits(4)}-${digits(2)}-${digits(2)}`,
      () => `${pad(Math.floor(random() * 10_000), 4)}-${pad(1 + Math.floor(random() * 12), 2)}-${pad(1 + Math.floor(random() * 31), 2)}`,
      () => `${digits(4)}-${digits(2)}-${digits(2)}T${digits(2)}:${digits(2)}:${digits(2)}.${digits(1 + Math.floor(random() * 9))}${pick(["Z", "+", "-"])}${digits(2)}:${digits(2)}`,
      () => pick(["now", "today", "yesterday", " now ", "", "-0d", "-1", "d", "2026-02-29", "2024-02-29", "9999-12-31T23:59:59+14:00", "1970-01-01T00:00:00-18:00", "+1d", "-1.5d", "NaN", "Infinity"]),
      () => Array.from({ length: Math.floor(random() * 12) }, () => String.fromCharCode(Math.floor(random() * 0x3000))).join(""),
    ];
    const seen = new Set<string>();
    for (let index = 0; index < 5000; index++) {
      const from = pick(generators)();
      const to = random() < 0.5 ? undefined : pick(generators)();
      const zone = pick(["UTC", "Pacific/Kiritimati", "Pacific/Niue", "America/St_Johns", "Europe/London"]);
      const answer = verdict(from, to, pick(["hour", "day", "week", "month"]), zone);
      seen.add(answer.startsWith("ok") ? "ok" : answer.split(":")[0]!);
    }
    // Every kind of answer occurred: ranges, and each side and the interval refused.
    expect([...seen].sort()).toEqual(["/date_range", "/date_range/from", "/date_range/to", "/insight/interval", "ok"]);
  });
});
