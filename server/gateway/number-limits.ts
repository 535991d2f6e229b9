// How fast one number may send. Messaging networks ban numbers that send in bursts or that go
// from silence to volume at once, so each number has a per-minute rate and, for its first days
// after pairing, a daily cap that doubles each day (the warm-up ramp).

export interface NumberLimitSettings {
  /** Sends per number per rolling minute. */
  sendsPerMinute: number;
  /** Daily caps for the first days after pairing (day 0 first); after them, only the per-minute rate. Empty: no warm-up. */
  warmupDailyCaps: readonly number[];
}

export const minuteMs = 60_000;
export const dayMs = 24 * 3_600_000;
export const defaultSendsPerMinute = 20;
export const defaultWarmupDailyCaps: readonly number[] = [50, 100, 200, 400, 800, 1_600];

export type NumberLimitStatus = { kind: "ready" } | { kind: "rate_limited" | "warming_up"; until: number; detail: string };

/**
 * Whether a number can send now, from the times of its accepted sends in the last day
 * (ascending) and when it was paired.
 */
export function numberLimitStatus(sendTimes: readonly number[], pairedAt: number, now: number, limits: NumberLimitSettings): NumberLimitStatus {
  const minuteStart = now - minuteMs;
  const inMinute = countSince(sendTimes, minuteStart);
  if (inMinute >= limits.sendsPerMinute) {
    const oldest = sendTimes[sendTimes.length - inMinute]!;
    return { kind: "rate_limited", until: oldest + minuteMs, detail: `${inMinute} sends in the last minute (limit ${limits.sendsPerMinute})` };
  }
  const day = Math.floor(Math.max(0, now - pairedAt) / dayMs);
  const cap = limits.warmupDailyCaps[day];
  if (cap !== undefined) {
    const inDay = countSince(sendTimes, now - dayMs);
    if (inDay >= cap) {
      const oldest = sendTimes[sendTimes.length - inDay]!;
      return { kind: "warming_up", until: Math.min(oldest + dayMs, pairedAt + (day + 1) * dayMs), detail: `day ${day + 1} of warm-up: ${inDay} sends in 24 h (cap ${cap})` };
    }
  }
  return { kind: "ready" };
}

/** How many of the ascending times are at or after `since`. */
function countSince(times: readonly number[], since: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (times[mid]! < since) low = mid + 1;
    else high = mid;
  }
  return times.length - low;
}

/** One number's recent sends, kept by the replica that owns it (the only one that sends through it). */
export class SendWindow {
  private times: number[];

  constructor(initial: readonly number[]) {
    this.times = [...initial];
  }

  record(at: number): void {
    this.times.push(at);
  }

  /** The times of the last day, oldest first (older ones are dropped). */
  recent(now: number): readonly number[] {
    const since = now - dayMs;
    if (this.times.length > 0 && this.times[0]! < since) this.times = this.times.filter((time) => time >= since);
    return this.times;
  }
}
