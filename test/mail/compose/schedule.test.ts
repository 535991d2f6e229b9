import { describe, expect, test } from "bun:test";
import { parseScheduledAt, scheduleHorizonMs } from "../../../server/mail/compose/schedule.ts";
import { refusal } from "./refusal.ts";

const now = new Date("2026-11-27T12:00:00.000Z");


const refused = (message: string, code = "invalid_value") => ({ status: 422, code, field: "scheduled_at", message: `scheduled_at: ${message}` });
const syntax = refused('must be an ISO 8601 time with a zone (2026-12-01T09:30:00Z) or "in N minutes|hours|days"');

describe("scheduled_at", () => {
  test("absent means send now", () => {
    expect(parseScheduledAt(undefined, now)).toBeNull();
    expect(parseScheduledAt(null, now)).toBeNull();
  });

  const accepted: Array<[string, string]> = [
    ["in 10 minutes", "2026-11-27T12:10:00.000Z"],
    ["in 1 minute", "2026-11-27T12:01:00.000Z"],
    ["IN 2 Hours", "2026-11-27T14:00:00.000Z"],
    ["  in   1   hour ", "2026-11-27T13:00:00.000Z"],
    ["in 3 days", "2026-11-30T12:00:00.000Z"],
    ["in 30 days", "2026-12-27T12:00:00.000Z"],
    ["in 43200 minutes", "2026-12-27T12:00:00.000Z"],
    ["2026-11-28T09:30:00Z", "2026-11-28T09:30:00.000Z"],
    ["2026-11-28t09:30z", "2026-11-28T09:30:00.000Z"],
    ["2026-11-28T10:30:00+01:00", "2026-11-28T09:30:00.000Z"],
    ["2026-11-27T23:30:00-05:30", "2026-11-28T05:00:00.000Z"],
    ["2026-11-28T09:30:00.123456789Z", "2026-11-28T09:30:00.123Z"],
    ["2026-11-28T09:30:00.5Z", "2026-11-28T09:30:00.500Z"],
    ["2026-12-27T12:00:00.000Z", "2026-12-27T12:00:00.000Z"],
    ["2026-11-27T12:00:00.001Z", "2026-11-27T12:00:00.001Z"],
  ];
  for (const [input, expected] of accepted) {
    test(`accepts ${JSON.stringify(input)}`, () => expect(parseScheduledAt(input, now)).toBe(expected));
  }

  test("30 days ahead is the horizon: exactly it passes, one millisecond more fails", () => {
    expect(scheduleHorizonMs).toBe(30 * 24 * 3600 * 1000);
    expect(refusal(() => parseScheduledAt("2026-12-27T12:00:00.001Z", now))).toEqual(refused("must be at most 30 days ahead"));
    expect(refusal(() => parseScheduledAt("in 31 days", now))).toEqual(refused("must be at most 30 days ahead"));
    expect(refusal(() => parseScheduledAt("in 43201 minutes", now))).toEqual(refused("must be at most 30 days ahead"));
    expect(refusal(() => parseScheduledAt("in 721 hours", now))).toEqual(refused("must be at most 30 days ahead"));
  });

  test("now and the past are refused", () => {
    for (const input of ["2026-11-27T12:00:00Z", "2026-11-27T11:59:59.999Z", "2020-01-01T00:00:00Z", "in 0 minutes", "2026-11-27T13:00:00+01:00"]) {
      expect(refusal(() => parseScheduledAt(input, now))).toEqual(refused("must be in the future"));
    }
  });

  test("what is not one of the two forms is refused with both forms in the message", () => {
    for (const input of [
      "tomorrow at 9am",
      "in 10 weeks",
      "in -5 minutes",
      "in 1.5 hours",
      "10 minutes",
      "2026-11-28T09:30:00",
      "2026-11-28 09:30:00Z",
      "2026-11-28",
      "1764320000",
      "2026-11-28T09:30:00+0100",
      "",
      "2026-11-28T09:30:00Z\r\nBcc: x@y.com",
    ]) {
      expect(refusal(() => parseScheduledAt(input, now))).toEqual(syntax);
    }
  });

  test("impossible dates and times are refused, not rolled over", () => {
    const later = new Date("2028-02-20T00:00:00Z");
    expect(parseScheduledAt("2028-02-29T08:00:00Z", later)).toBe("2028-02-29T08:00:00.000Z");
    for (const input of [
      "2027-02-29T08:00:00Z",
      "2026-11-31T08:00:00Z",
      "2026-13-01T08:00:00Z",
      "2026-12-00T08:00:00Z",
      "2026-11-28T24:00:00Z",
      "2026-11-28T09:60:00Z",
      "2026-11-28T09:30:60Z",
      "2026-11-28T09:30:00+24:00",
      "2026-11-28T09:30:00+01:60",
    ]) {
      expect(refusal(() => parseScheduledAt(input, input.startsWith("2027") ? new Date("2027-02-20T00:00:00Z") : now))).toEqual(
        refused("is not a valid date and time"),
      );
    }
  });

  test("a value that is not a string", () => {
    for (const input of [1764320000000, true, {}, ["in 1 hour"]]) {
      expect(refusal(() => parseScheduledAt(input, now))).toEqual(refused("must be a string", "invalid_type"));
    }
  });
});
