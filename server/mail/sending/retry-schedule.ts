// When a recipient deferred by a temporary failure (4xx, no answer, DNS down) is tried again:
// quickly at first, since most deferrals are greylisting (which lets the second try through
// after a few minutes), then further apart; after the last wait the recipient bounces with the
// class of its last answer, about two days after the first attempt, as MTAs give up (Postfix
// defaults to five days; a transactional email days late is worth less than a clear bounce).
import { hourMs, minuteMs } from "../../clock.ts";

export const deferredRetryDelaysMs: readonly number[] = [
  1 * minuteMs,
  5 * minuteMs,
  15 * minuteMs,
  30 * minuteMs,
  1 * hourMs,
  2 * hourMs,
  4 * hourMs,
  8 * hourMs,
  12 * hourMs,
  24 * hourMs,
];

/** The wait after the `attempts`-th attempt deferred, or null when no attempt is left. */
export const retryDelayAfter = (attempts: number): number | null => deferredRetryDelaysMs[attempts - 1] ?? null;
