// Counts events per key over a sliding window: "N per minute" means N within any 60 s,
// so the (N+1)th inside the window is refused and Retry-After says when a slot frees up.

export interface WindowVerdict {
  allowed: boolean;
  retryAfterSeconds: number;
}

const sweepEveryTakes = 10_000;

export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();
  private takesSinceSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  private live(key: string, now: number): number[] {
    const stamps = this.hits.get(key);
    if (!stamps) return [];
    const cutoff = now - this.windowMs;
    let drop = 0;
    while (drop < stamps.length && stamps[drop]! <= cutoff) drop++;
    if (drop > 0) stamps.splice(0, drop);
    return stamps;
  }

  /** Whether one more event would be allowed, without counting it. */
  check(key: string, now = Date.now()): WindowVerdict {
    const stamps = this.live(key, now);
    if (stamps.length < this.limit) return { allowed: true, retryAfterSeconds: 0 };
    const freesAt = stamps[stamps.length - this.limit]! + this.windowMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now) / 1000)) };
  }

  record(key: string, now = Date.now()): void {
    const stamps = this.live(key, now);
    stamps.push(now);
    this.hits.set(key, stamps);
    if (++this.takesSinceSweep >= sweepEveryTakes) this.sweep(now);
  }

  /** check + record: counts the event only when it is allowed. */
  take(key: string, now = Date.now()): WindowVerdict {
    const verdict = this.check(key, now);
    if (verdict.allowed) this.record(key, now);
    return verdict;
  }

  clear(key: string): void {
    this.hits.delete(key);
  }

  private sweep(now: number): void {
    this.takesSinceSweep = 0;
    for (const key of [...this.hits.keys()]) {
      if (this.live(key, now).length === 0) this.hits.delete(key);
    }
  }
}
