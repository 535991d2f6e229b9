// How the replay pages write durations, player positions and start times.
import { expect, test } from "bun:test";
import { formatDuration, formatPlayerTime, formatStart } from "../../../../../web/console/pages/replays/replay-format.ts";

test("durations: seconds below a minute (tenths kept), then minutes and hours", () => {
  expect([0, 5, 12.5, 59.94, 60, 65, 3599.6, 3600, 7_329].map(formatDuration)).toEqual(["0s", "5s", "12.5s", "59.9s", "1m 00s", "1m 05s", "1h 00m 00s", "1h 00m 00s", "2h 02m 09s"]);
});

test("player positions: m:ss, then h:mm:ss; never negative", () => {
  expect([-5, 0, 999, 31_000, 60_000, 3_729_000].map(formatPlayerTime)).toEqual(["0:00", "0:00", "0:00", "0:31", "1:00", "1:02:09"]);
});

test("start times in the project's zone, 24-hour", () => {
  expect(formatStart("2026-11-27T13:05:09Z", "Europe/Berlin")).toMatch(/Nov 27, 14:05:09$/);
});
