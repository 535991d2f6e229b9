// When a failed delivery is tried again (spec: 10 s, 30 s, 2 min, 5 min, 15 min, 1 h, 6 h),
// and when it is given up as dead: after the seventh retry fails.
export const deliveryRetryDelaysMs: readonly number[] = [10_000, 30_000, 120_000, 300_000, 900_000, 3_600_000, 21_600_000];

/** After `attemptsMade` failed attempts: the next attempt's time, or null when the delivery is dead. */
export function nextDeliveryAttempt(attemptsMade: number, now: number): number | null {
  const delay = deliveryRetryDelaysMs[attemptsMade - 1];
  return delay === undefined ? null : now + delay;
}
