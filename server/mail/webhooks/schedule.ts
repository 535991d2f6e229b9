// When a webhook delivery that got no 2xx is tried again: 5 s, 30 s, 2 min, 10 min, 1 h, 6 h
// and 24 h after each failure (eight attempts over about 31 hours, so a receiver down for a
// day still gets everything), then it is `failed` (a replay queues it again).
export const webhookRetryDelaysMs: readonly number[] = [5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000];

/** After `attemptsMade` failed attempts: when to try next, or null when the delivery has failed for good. */
export function nextWebhookAttempt(attemptsMade: number, now: number): number | null {
  const delay = webhookRetryDelaysMs[attemptsMade - 1];
  return delay === undefined ? null : now + delay;
}
