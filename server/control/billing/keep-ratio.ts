// The share of arriving events (and recordings) capture may keep so that the period's expected
// invoice stays within the spend cap. Pure arithmetic: billing-evaluation.ts feeds it usage.
import { invoiceMinor, type MeteredUsage, type PaidPlanTerms } from "./plans.ts";

/**
 * Sampling never keeps less than this share: with fewer kept events, counts weighted by
 * `$sample_rate` get too coarse to read (relative error grows as 1/sqrt(kept)). At this floor
 * the invoice may pass the cap by the overage of 1% of the remaining arrivals.
 */
export const keepRatioMin = 0.01;
/** Ratios are rounded down to this step, so a ratio is pushed again only when it really moves. */
export const keepRatioStep = 0.001;
/** Bisection rounds: 2^-30 is far below keepRatioStep. */
const searchRounds = 30;

export interface CapForecast {
  /** Stored so far this period. */
  stored: MeteredUsage;
  /** Expected arrivals (before sampling) from now to the period's end. */
  arriving: MeteredUsage;
}

/** The expected usage at the period's end if capture keeps `keep` of what arrives from now on. */
export function projectedUsage(forecast: CapForecast, keep: number): MeteredUsage {
  return {
    events: forecast.stored.events + keep * forecast.arriving.events,
    replayRecordings: forecast.stored.replayRecordings + keep * forecast.arriving.replayRecordings,
  };
}

/**
 * The largest keep ratio k in [keepRatioMin, 1] (rounded down to keepRatioStep) whose expected
 * invoice, price + overage(stored + k × arriving), is within `capMinor`; 1 when keeping
 * everything stays within it. The invoice grows with k, so a bisection finds it.
 */
export function keepRatioWithin(plan: PaidPlanTerms, capMinor: number, forecast: CapForecast): number {
  const within = (keep: number) => invoiceMinor(plan, projectedUsage(forecast, keep)) <= capMinor;
  if (within(1)) return 1;
  let low = 0;
  let high = 1;
  for (let round = 0; round < searchRounds; round++) {
    const middle = (low + high) / 2;
    if (within(middle)) low = middle;
    else high = middle;
  }
  const stepped = Math.floor(low / keepRatioStep) * keepRatioStep;
  return Math.max(keepRatioMin, Number(stepped.toFixed(3)));
}
