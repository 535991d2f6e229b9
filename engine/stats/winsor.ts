// Winsorisation: per-unit values above the winsor_pct percentile are replaced by it, so a few
// extreme units (a bulk buyer, a bot) cannot decide a revenue test. Only the upper tail is
// capped: the metrics this is for are non-negative and mostly zero, where the low percentiles
// are 0 anyway and capping them would change nothing but the rare refund.
//
// The percentile is the one engine/quantile.ts computes (DuckDB's quantile_cont): sort the
// values, position q · (n - 1), interpolate linearly between the two values around it. The cap
// comes from all arms pooled, so every arm is cut at the same value.
import { quantile } from "../quantile.ts";
import { requireFinite, StatsInputError } from "./errors.ts";

export interface WinsorizedArms {
  /** The cap; null when there were no values at all. */
  cap: number | null;
  arms: Float64Array[];
  /** Values that were above the cap, over all arms. */
  capped_units: number;
}

function requireWinsorPct(winsorPct: number): void {
  if (!(winsorPct > 0 && winsorPct <= 1)) {
    throw new StatsInputError(`winsor_pct must be a fraction above 0 and at most 1 (0.99 caps at the 99th percentile), got ${winsorPct}`);
  }
}

/** The winsor_pct percentile of the values. */
export function winsorCap(values: ArrayLike<number>, winsorPct: number): number | null {
  requireWinsorPct(winsorPct);
  const copy = Float64Array.from(values);
  copy.forEach((value, index) => requireFinite(`values[${index}]`, value));
  return quantile(copy, winsorPct);
}

export function winsorizeArms(arms: readonly ArrayLike<number>[], winsorPct: number): WinsorizedArms {
  requireWinsorPct(winsorPct);
  const pooled = new Float64Array(arms.reduce((count, arm) => count + arm.length, 0));
  let offset = 0;
  for (const arm of arms) {
    pooled.set(Float64Array.from(arm), offset);
    offset += arm.length;
  }
  const cap = winsorCap(pooled, winsorPct);
  let cappedUnits = 0;
  const capped = arms.map((arm) =>
    Float64Array.from(arm, (value) => {
      if (cap === null || value <= cap) return value;
      cappedUnits++;
      return cap;
    }),
  );
  return { cap, arms: capped, capped_units: cappedUnits };
}
