// When a delivery that got no 2xx is tried again. Waits after each failed attempt: 30 s, 2 min,
// 10 min, 1 h, 6 h (six attempts over about seven hours), then the delivery has `failed`. A 4xx
// other than 408 (Request Timeout) and 429 (Too Many Requests) fails it at once: the receiver
// refused this request (Slack answers 404 `channel_not_found`, 410 `channel_is_archived`, 403
// `action_prohibited`), and the same bytes would be refused again. A Retry-After on a 429 or 503
// is honoured: the next attempt is not made before it (but never later than retryAfterMaxMs,
// so a receiver cannot park a delivery for days).

export const deliveryRetryDelaysMs: readonly number[] = [30_000, 120_000, 600_000, 3_600_000, 21_600_000];
/** Attempts a finding's delivery gets at most: the first and one per retry delay. */
export const deliveryAttemptsMax = deliveryRetryDelaysMs.length + 1;
/** The longest wait a Retry-After can ask for. */
export const retryAfterMaxMs = 21_600_000;

/** Whether an attempt that got this status (null: no answer) may be tried again. */
export function isRetryable(status: number | null): boolean {
  if (status === null) return true;
  if (status >= 400 && status < 500) return status === 408 || status === 429;
  return true;
}

/** Retry-After in ms from now (delay-seconds or an HTTP-date), on the statuses that carry it; null when absent or unreadable. */
export function retryAfterMs(status: number | null, header: string | null, nowMs: number): number | null {
  if ((status !== 429 && status !== 503) || header === null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1_000, retryAfterMaxMs);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.min(Math.max(0, date - nowMs), retryAfterMaxMs);
}

/**
 * After `attemptsMade` attempts, the last of which failed: when to try next (epoch ms), or null
 * when the delivery has failed for good.
 */
export function nextAttemptAt(attemptsMade: number, status: number | null, retryAfter: number | null, nowMs: number): number | null {
  if (!isRetryable(status)) return null;
  const delay = deliveryRetryDelaysMs[attemptsMade - 1];
  if (delay === undefined) return null;
  return nowMs + Math.max(delay, retryAfter ?? 0);
}
