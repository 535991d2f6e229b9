// Requests per API key: a token bucket per key, refilled at `perSecond` up to `burst`, kept in
// this process's memory (each process serving the mail API limits on its own). A bucket left
// alone long enough to refill is the same as a new one, so idle buckets are dropped, and the
// map never holds more than `bucketsMax` (the least recently used goes first).

export interface RateLimit {
  perSecond: number;
  burst: number;
  bucketsMax: number;
}

/** Keys remembered at most (a bucket is a few dozen bytes). */
export const rateLimitBucketsMax = 10_000;

export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  /** Whole requests left now. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the next request is allowed (0 when this one was). */
  retryAfterSeconds: number;
}

/** Tokens are counted in thousandths so refills of whole milliseconds stay exact integers. */
const requestMilliTokens = 1_000;

interface Bucket {
  milliTokens: number;
  updatedMs: number;
}

/** Idle buckets dropped per request at most, so no request pays for a long sweep. */
const idleEvictionsPerTake = 2;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.buckets.size;
  }

  /** Takes one request from `key`'s bucket. */
  take(key: string): RateLimitVerdict {
    const now = this.now();
    this.evictIdle(now);
    const full = this.limit.burst * requestMilliTokens;
    const bucket = this.buckets.get(key) ?? { milliTokens: full, updatedMs: now };
    bucket.milliTokens = this.refilled(bucket, now);
    bucket.updatedMs = now;
    const allowed = bucket.milliTokens >= requestMilliTokens;
    if (allowed) bucket.milliTokens -= requestMilliTokens;
    // Re-inserted so the map's order is least recently used first.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.limit.bucketsMax) this.buckets.delete(this.buckets.keys().next().value!);
    return {
      allowed,
      limit: this.limit.burst,
      remaining: Math.floor(bucket.milliTokens / requestMilliTokens),
      resetSeconds: this.secondsToRefill(full - bucket.milliTokens),
      retryAfterSeconds: allowed ? 0 : this.secondsToRefill(requestMilliTokens - bucket.milliTokens),
    };
  }

  /** `perSecond` tokens a second is `perSecond` thousandths a millisecond. */
  private refilled(bucket: Bucket, now: number): number {
    return Math.min(this.limit.burst * requestMilliTokens, bucket.milliTokens + Math.max(0, now - bucket.updatedMs) * this.limit.perSecond);
  }

  private secondsToRefill(milliTokens: number): number {
    return Math.ceil(milliTokens / this.limit.perSecond / 1_000);
  }

  private evictIdle(now: number): void {
    for (let evicted = 0; evicted < idleEvictionsPerTake; evicted++) {
      const [oldestKey, oldest] = this.buckets.entries().next().value ?? [];
      if (!oldestKey || !oldest || this.refilled(oldest, now) < this.limit.burst * requestMilliTokens) return;
      this.buckets.delete(oldestKey);
    }
  }
}
