// The token bucket per key at its edges, on a clock the test moves: 20 at once, then one per
// 100 ms; buckets of other keys apart; idle buckets dropped and the map bounded.
import { expect, test } from "bun:test";
import { RateLimiter } from "../../../server/mail/plans/rate-limiter.ts";

const limiterAt = (bucketsMax = 100) => {
  let now = 1_700_000_000_000;
  const limiter = new RateLimiter({ perSecond: 10, burst: 20, bucketsMax }, () => now);
  return { limiter, advance: (ms: number) => void (now += ms) };
};

test("20 requests pass at once, the 21st is refused until 100 ms have refilled one", () => {
  const { limiter, advance } = limiterAt();
  expect(limiter.take("k")).toEqual({ allowed: true, limit: 20, remaining: 19, resetSeconds: 1, retryAfterSeconds: 0 });
  for (let request = 2; request < 20; request++) limiter.take("k");
  expect(limiter.take("k")).toEqual({ allowed: true, limit: 20, remaining: 0, resetSeconds: 2, retryAfterSeconds: 0 });
  expect(limiter.take("k")).toEqual({ allowed: false, limit: 20, remaining: 0, resetSeconds: 2, retryAfterSeconds: 1 });
  expect(limiter.take("other").allowed).toBe(true);
  advance(99);
  expect(limiter.take("k").allowed).toBe(false);
  advance(1);
  expect(limiter.take("k")).toEqual({ allowed: true, limit: 20, remaining: 0, resetSeconds: 2, retryAfterSeconds: 0 });
  expect(limiter.take("k").allowed).toBe(false);
  // Two seconds refill the whole bucket, and no more.
  advance(10_000);
  for (let request = 0; request < 20; request++) expect(limiter.take("k").allowed).toBe(true);
  expect(limiter.take("k").allowed).toBe(false);
});

test("sustained traffic gets 10 a second", () => {
  const { limiter, advance } = limiterAt();
  for (let request = 0; request < 20; request++) limiter.take("k");
  let allowed = 0;
  for (let ms = 0; ms < 1_000; ms += 10) {
    advance(10);
    if (limiter.take("k").allowed) allowed++;
  }
  expect(allowed).toBe(10);
});

test("idle buckets are dropped as others are used, and the map never passes its bound", () => {
  const { limiter, advance } = limiterAt(3);
  limiter.take("a");
  limiter.take("b");
  expect(limiter.size).toBe(2);
  advance(99);
  // "a" and "b" are a millisecond from full: kept.
  limiter.take("c");
  expect(limiter.size).toBe(3);
  advance(2_000);
  limiter.take("c");
  expect(limiter.size).toBe(1);
  for (const key of ["d", "e", "f", "g"]) limiter.take(key);
  expect(limiter.size).toBe(3);
});

test("a dropped bucket was full: its key gets the whole burst again", () => {
  const { limiter } = limiterAt(1);
  for (let request = 0; request < 20; request++) limiter.take("a");
  expect(limiter.take("a").allowed).toBe(false);
  limiter.take("b");
  expect(limiter.take("a").remaining).toBe(19);
});
