import { expect, test } from "bun:test";
import { ProjectRateLimiter } from "../../server/ingest/project-rate.ts";
import { projectEventsBurst, projectEventsPerSecond } from "../../server/ingest/limits.ts";

test("the spec's numbers: 5,000 events/s sustained, bursts of 50,000", () => {
  expect([projectEventsPerSecond, projectEventsBurst]).toEqual([5000, 50_000]);
});

test("a full bucket takes exactly the burst; one more event waits for the refill", () => {
  const limiter = new ProjectRateLimiter();
  expect(limiter.take("p", 50_000, 0)).toBe(0);
  expect(limiter.take("p", 1, 0)).toBe(1);
  expect(limiter.take("other", 50_000, 0)).toBe(0);
});

test("refills at the sustained rate and tells how long a batch must wait", () => {
  const limiter = new ProjectRateLimiter();
  limiter.take("p", 50_000, 0);
  expect(limiter.take("p", 5000, 1000)).toBe(0);
  expect(limiter.take("p", 1000, 1000)).toBe(1);
  expect(limiter.take("p", 20_000, 2000)).toBe(3);
  expect(limiter.take("p", 50_000, 1_000_000)).toBe(0);
});
