// Intervals for a difference between treatment and control, and the delta method that turns
// an interval for the absolute difference into one for the relative difference (lift).

export interface Interval {
  lower: number;
  upper: number;
}

export function intervalAround(center: number, halfWidth: number): Interval {
  return { lower: center - halfWidth, upper: center + halfWidth };
}

/** (treatment - control) / |control|: its sign is always that of the absolute difference. */
export function relativeDifference(control: number, treatment: number): number | null {
  return control === 0 ? null : (treatment - control) / Math.abs(control);
}

/**
 * Delta method: for r = (T - C) / |C| with independent estimates,
 * Var(r) ≈ Var(T) / C² + T² Var(C) / C⁴. Null when the control value is 0 (no lift defined).
 */
export function relativeInterval(
  control: number,
  controlVariance: number,
  treatment: number,
  treatmentVariance: number,
  critical: number,
): Interval | null {
  const relative = relativeDifference(control, treatment);
  if (relative === null) return null;
  const controlSquared = control * control;
  const variance = treatmentVariance / controlSquared + (treatment * treatment * controlVariance) / (controlSquared * controlSquared);
  return intervalAround(relative, critical * Math.sqrt(variance));
}
