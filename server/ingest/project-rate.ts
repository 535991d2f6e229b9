// Per-project ingest rate: a token bucket refilled at 5,000 events/s holding up to 50,000,
// so bursts pass and sustained overload gets 429 with the time until the batch would fit.
import { projectEventsBurst, projectEventsPerSecond } from "./limits.ts";

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class ProjectRateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly perSecond = projectEventsPerSecond,
    private readonly burst = projectEventsBurst,
  ) {}

  /** Takes `events` tokens; returns 0 when allowed, else the seconds until they would be available. */
  take(projectId: string, events: number, nowMs = performance.now()): number {
    const bucket = this.buckets.get(projectId) ?? { tokens: this.burst, updatedMs: nowMs };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * this.perSecond);
    bucket.updatedMs = nowMs;
    this.buckets.set(projectId, bucket);
    if (bucket.tokens >= events) {
      bucket.tokens -= events;
      return 0;
    }
    return Math.max(1, Math.ceil((events - bucket.tokens) / this.perSecond));
  }
}
