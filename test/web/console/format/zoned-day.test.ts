// Days in a project's time zone as instants, across offsets on both sides of UTC and a DST change.
import { expect, test } from "bun:test";
import { zonedDay, zonedDayStart } from "../../../../web/console/format/zoned-day.ts";

test("a day starts at its zone's midnight, and ends where the next one starts", () => {
  const cases: [string, string, number, string][] = [
    ["2026-11-27", "UTC", 0, "2026-11-27T00:00:00.000Z"],
    ["2026-11-27", "Europe/Berlin", 0, "2026-11-26T23:00:00.000Z"],
    ["2026-11-27", "Europe/Berlin", 1, "2026-11-27T23:00:00.000Z"],
    ["2026-11-27", "America/Los_Angeles", 0, "2026-11-27T08:00:00.000Z"],
    ["2026-11-27", "Asia/Kolkata", 0, "2026-11-26T18:30:00.000Z"],
    // Berlin moves to summer time on 2026-03-29: that day is 23 hours long.
    ["2026-03-29", "Europe/Berlin", 0, "2026-03-28T23:00:00.000Z"],
    ["2026-03-29", "Europe/Berlin", 1, "2026-03-29T22:00:00.000Z"],
    ["2026-12-31", "UTC", 1, "2027-01-01T00:00:00.000Z"],
  ];
  expect(cases.map(([day, zone, days]) => zonedDayStart(day, zone, days).toISOString())).toEqual(cases.map(([, , , start]) => start));
});

test("an instant falls on its zone's day", () => {
  expect([zonedDay("2026-11-26T23:30:00Z", "Europe/Berlin"), zonedDay("2026-11-26T23:30:00Z", "UTC"), zonedDay("2026-11-27T07:59:59Z", "America/Los_Angeles")]).toEqual(["2026-11-27", "2026-11-26", "2026-11-26"]);
});
