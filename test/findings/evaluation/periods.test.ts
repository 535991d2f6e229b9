// The periods a rule judges: the last complete local hour or day once evaluationDelayMs has
// passed since its end, in the project's time zone (DST days included), and its baseline
// periods a week apart at the same local hour or weekday.
import { describe, expect, test } from "bun:test";
import { baselinePeriods, evaluationDelayMs, isJudgeable, latestDuePeriod, periodDescription } from "../../../server/findings/evaluation/periods.ts";

const at = (iso: string) => Date.parse(iso);
const span = (period: { start: number; end: number }) => [new Date(period.start).toISOString(), new Date(period.end).toISOString()];

describe("latest due period", () => {
  test("hourly: the previous hour once its end is evaluationDelayMs old, not before", () => {
    expect(evaluationDelayMs).toBe(600_000);
    expect(span(latestDuePeriod("hourly", "UTC", at("2026-11-23T15:10:00Z")))).toEqual(["2026-11-23T14:00:00.000Z", "2026-11-23T15:00:00.000Z"]);
    expect(span(latestDuePeriod("hourly", "UTC", at("2026-11-23T15:09:59.999Z")))).toEqual(["2026-11-23T13:00:00.000Z", "2026-11-23T14:00:00.000Z"]);
  });

  test("daily: the previous local day in the project's zone", () => {
    // 00:10 in Berlin (UTC+1) is 23:10 UTC the day before.
    expect(span(latestDuePeriod("daily", "Europe/Berlin", at("2026-11-23T23:10:00Z")))).toEqual(["2026-11-22T23:00:00.000Z", "2026-11-23T23:00:00.000Z"]);
    expect(span(latestDuePeriod("daily", "Europe/Berlin", at("2026-11-23T23:09:00Z")))).toEqual(["2026-11-21T23:00:00.000Z", "2026-11-22T23:00:00.000Z"]);
    expect(span(latestDuePeriod("daily", "Asia/Kolkata", at("2026-11-23T18:40:00Z")))).toEqual(["2026-11-22T18:30:00.000Z", "2026-11-23T18:30:00.000Z"]);
  });

  test("a DST day has 23 or 25 hours; the skipped local hour is empty", () => {
    expect(span(latestDuePeriod("daily", "Europe/Berlin", at("2026-03-29T22:10:00Z")))).toEqual(["2026-03-28T23:00:00.000Z", "2026-03-29T22:00:00.000Z"]);
    expect(span(latestDuePeriod("daily", "Europe/Berlin", at("2026-10-25T23:10:00Z")))).toEqual(["2026-10-24T22:00:00.000Z", "2026-10-25T23:00:00.000Z"]);
  });
});

describe("judgeable periods", () => {
  test("an hourly period must be one real hour: the skipped local hour is empty, the repeated one spans two", () => {
    // Berlin, 29 March 2026: 02:00 local does not exist (01:00Z is 03:00 local).
    const skipped = latestDuePeriod("hourly", "Europe/Berlin", at("2026-03-29T01:10:00Z"));
    expect([span(skipped), isJudgeable(skipped)]).toEqual([["2026-03-29T01:00:00.000Z", "2026-03-29T01:00:00.000Z"], false]);
    // Berlin, 25 October 2026: 02:00-03:00 local happens twice (00:00Z-02:00Z).
    const repeated = latestDuePeriod("hourly", "Europe/Berlin", at("2026-10-25T02:15:00Z"));
    expect([span(repeated), isJudgeable(repeated)]).toEqual([["2026-10-25T00:00:00.000Z", "2026-10-25T02:00:00.000Z"], false]);
    const ordinary = latestDuePeriod("hourly", "Europe/Berlin", at("2026-10-25T03:15:00Z"));
    expect([span(ordinary), isJudgeable(ordinary)]).toEqual([["2026-10-25T02:00:00.000Z", "2026-10-25T03:00:00.000Z"], true]);
  });

  test("a DST day of 23 or 25 hours is judged", () => {
    expect(isJudgeable(latestDuePeriod("daily", "Europe/Berlin", at("2026-03-29T22:10:00Z")))).toBe(true);
    expect(isJudgeable(latestDuePeriod("daily", "Europe/Berlin", at("2026-10-25T23:10:00Z")))).toBe(true);
  });
});

describe("baseline periods", () => {
  test("the same local hour of the same weekday, oldest first, across a DST change", () => {
    const period = latestDuePeriod("hourly", "Europe/Berlin", at("2026-11-02T14:10:00Z")); // Monday 14:00-15:00 local (UTC+1)
    expect(periodDescription(period)).toBe("Mondays 14:00–15:00");
    // Two weeks back is before the change of 25 October: 14:00 local is 12:00 UTC there.
    expect(baselinePeriods(period, "Europe/Berlin", 2).map(span)).toEqual([
      ["2026-10-19T12:00:00.000Z", "2026-10-19T13:00:00.000Z"],
      ["2026-10-26T13:00:00.000Z", "2026-10-26T14:00:00.000Z"],
    ]);
  });

  test("daily: the same weekday", () => {
    const period = latestDuePeriod("daily", "UTC", at("2026-11-24T00:10:00Z"));
    expect(periodDescription(period)).toBe("Mondays");
    expect(baselinePeriods(period, "UTC", 1).map(span)).toEqual([["2026-11-16T00:00:00.000Z", "2026-11-17T00:00:00.000Z"]]);
    expect(periodDescription(latestDuePeriod("hourly", "UTC", at("2026-11-24T00:10:00Z")))).toBe("Mondays 23:00–00:00");
  });
});
