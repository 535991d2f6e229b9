// Bayesian comparisons. The probability to beat control is checked against a numerical
// integration written here (P(X_t > X_c) = ∫ f_t(x) F_c(x) dx on a fine grid, with its own
// log-factorials), closed forms and symmetry; intervals and losses against their formulas.
import { describe, expect, test } from "bun:test";
import { bayesMeans, bayesProportions, normalCdf, StatsInputError, type ProportionArm } from "../../../engine/stats/index.ts";
import { probabilityBetaGreater, type BetaParameters } from "../../../engine/stats/beta-comparison.ts";

const z975 = 1.959963984540054;
const gridPoints = 400_000;
/** Beta posteriors here are close to normal; 40 standard deviations leave no mass outside. */
const gridHalfWidthSds = 40;

const logFactorials = [0];
function logFactorial(n: number): number {
  while (logFactorials.length <= n) logFactorials.push(logFactorials[logFactorials.length - 1]! + Math.log(logFactorials.length));
  return logFactorials[n]!;
}

function betaLogDensity({ alpha, beta }: BetaParameters, x: number): number {
  const logNormalizer = logFactorial(alpha + beta - 1) - logFactorial(alpha - 1) - logFactorial(beta - 1);
  const left = alpha === 1 ? 0 : (alpha - 1) * Math.log(x);
  const right = beta === 1 ? 0 : (beta - 1) * Math.log1p(-x);
  return logNormalizer + left + right;
}

/** ∫ f_t(x) F_c(x) dx by the trapezoid rule, F_c accumulated along the same grid. */
function integratedProbability(control: BetaParameters, treatment: BetaParameters): number {
  const spread = (p: BetaParameters) => {
    const total = p.alpha + p.beta;
    return { mean: p.alpha / total, sd: Math.sqrt((p.alpha * p.beta) / (total * total * (total + 1))) };
  };
  const [c, t] = [spread(control), spread(treatment)];
  const low = Math.max(0, Math.min(c.mean - gridHalfWidthSds * c.sd, t.mean - gridHalfWidthSds * t.sd));
  const high = Math.min(1, Math.max(c.mean + gridHalfWidthSds * c.sd, t.mean + gridHalfWidthSds * t.sd));
  const step = (high - low) / gridPoints;
  const density = (p: BetaParameters, x: number) => (x <= 0 || x >= 1 ? (x <= 0 ? (p.alpha === 1 ? p.beta : 0) : p.beta === 1 ? p.alpha : 0) : Math.exp(betaLogDensity(p, x)));
  let controlCdf = 0;
  let previousControl = density(control, low);
  let previousIntegrand = 0;
  let probability = 0;
  for (let i = 1; i <= gridPoints; i++) {
    const x = low + i * step;
    const controlDensity = density(control, x);
    controlCdf += 0.5 * step * (previousControl + controlDensity);
    previousControl = controlDensity;
    const integrand = density(treatment, x) * controlCdf;
    probability += 0.5 * step * (previousIntegrand + integrand);
    previousIntegrand = integrand;
  }
  return probability;
}

const posterior = (arm: ProportionArm): BetaParameters => ({ alpha: 1 + arm.conversions, beta: 1 + arm.units - arm.conversions });

describe("probability that a Beta variable exceeds another", () => {
  test("closed forms: uniform against uniform is 1/2, Beta(2, 1) against uniform is E[X] = 2/3", () => {
    expect(probabilityBetaGreater({ alpha: 1, beta: 1 }, { alpha: 1, beta: 1 })).toBeCloseTo(0.5, 15);
    expect(probabilityBetaGreater({ alpha: 1, beta: 1 }, { alpha: 2, beta: 1 })).toBeCloseTo(2 / 3, 14);
    expect(probabilityBetaGreater({ alpha: 2, beta: 1 }, { alpha: 1, beta: 1 })).toBeCloseTo(1 / 3, 14);
  });

  // Each case makes a different parameter the smallest, so each form of the sum runs.
  test.each([
    ["treatment α smallest", { units: 1000, conversions: 200 }, { units: 1000, conversions: 150 }],
    ["control α smallest", { units: 1000, conversions: 200 }, { units: 1000, conversions: 250 }],
    ["control β smallest", { units: 100, conversions: 95 }, { units: 100, conversions: 90 }],
    ["treatment β smallest", { units: 100, conversions: 95 }, { units: 100, conversions: 98 }],
    ["small counts", { units: 100, conversions: 10 }, { units: 120, conversions: 15 }],
    ["no conversions in one arm", { units: 1000, conversions: 0 }, { units: 1000, conversions: 3 }],
    ["large counts", { units: 200_000, conversions: 20_000 }, { units: 200_000, conversions: 20_300 }],
  ] as [string, ProportionArm, ProportionArm][])("%s: the exact sum matches numerical integration", (_, control, treatment) => {
    const exact = probabilityBetaGreater(posterior(control), posterior(treatment));
    expect(Math.abs(exact - integratedProbability(posterior(control), posterior(treatment)))).toBeLessThan(1e-7);
    expect(exact + probabilityBetaGreater(posterior(treatment), posterior(control))).toBeCloseTo(1, 12);
  });

  test("identical arms give exactly one half", () => {
    for (const arm of [{ units: 10, conversions: 3 }, { units: 5000, conversions: 1234 }, { units: 100, conversions: 100 }]) {
      expect(probabilityBetaGreater(posterior(arm), posterior(arm))).toBeCloseTo(0.5, 12);
    }
  });

  test("a million units per arm at 50 %: matches the normal limit Φ(1.5)", () => {
    const probability = probabilityBetaGreater(posterior({ units: 2_000_000, conversions: 1_000_000 }), posterior({ units: 2_000_000, conversions: 1_001_500 }));
    expect(Math.abs(probability - normalCdf(1.5))).toBeLessThan(1e-5);
  });

  test("parameters must be whole numbers of at least 1", () => {
    expect(() => probabilityBetaGreater({ alpha: 1.5, beta: 2 }, { alpha: 1, beta: 1 })).toThrow("whole numbers");
    expect(() => probabilityBetaGreater({ alpha: 1, beta: 1 }, { alpha: 0, beta: 1 })).toThrow("whole numbers");
  });
});

describe("Bayesian proportions", () => {
  const control = { units: 1000, conversions: 200 };
  const treatment = { units: 1000, conversions: 250 };

  test("posterior means, normal-approximation credible interval, exact probability", () => {
    const result = bayesProportions(control, treatment);
    const controlMean = 201 / 1002;
    const treatmentMean = 251 / 1002;
    const betaVariance = (a: number, b: number) => (a * b) / ((a + b) ** 2 * (a + b + 1));
    const sd = Math.sqrt(betaVariance(201, 801) + betaVariance(251, 751));
    expect(result).toMatchObject({ method: "bayesian", model: "beta_binomial", credible_level: 0.95 });
    expect(result.control_value).toBeCloseTo(controlMean, 15);
    expect(result.treatment_value).toBeCloseTo(treatmentMean, 15);
    expect(result.credible_interval.lower).toBeCloseTo(treatmentMean - controlMean - z975 * sd, 14);
    expect(result.credible_interval.upper).toBeCloseTo(treatmentMean - controlMean + z975 * sd, 14);
    expect(result.relative_difference!).toBeCloseTo(50 / 201, 14);
    expect(Math.abs(result.probability_to_beat_control - integratedProbability(posterior(control), posterior(treatment)))).toBeLessThan(1e-7);
  });

  test("expected losses: E[max(-D, 0)] by integration, and loss of control minus loss of treatment is E[D]", () => {
    const result = bayesProportions({ units: 300, conversions: 30 }, { units: 300, conversions: 36 });
    const mean = result.absolute_difference;
    const sd = (result.credible_interval.upper - result.credible_interval.lower) / (2 * z975);
    let shortfall = 0;
    const steps = 200_000;
    const step = (20 * sd) / steps;
    for (let i = 0; i < steps; i++) {
      const d = mean - 10 * sd + (i + 0.5) * step;
      if (d < 0) shortfall += -d * Math.exp(-0.5 * ((d - mean) / sd) ** 2) * step;
    }
    expect(result.expected_loss_treatment).toBeCloseTo(shortfall / (sd * Math.sqrt(2 * Math.PI)), 10);
    expect(result.expected_loss_control - result.expected_loss_treatment).toBeCloseTo(mean, 14);
  });

  test("lower is better: the probability and the losses turn around", () => {
    const higher = bayesProportions(control, treatment);
    const lower = bayesProportions(control, treatment, { higher_is_better: false });
    expect(lower.probability_to_beat_control).toBeCloseTo(1 - higher.probability_to_beat_control, 15);
    expect(lower.expected_loss_treatment).toBeCloseTo(higher.expected_loss_control, 15);
    expect(lower.expected_loss_control).toBeCloseTo(higher.expected_loss_treatment, 15);
    expect(lower.credible_interval).toEqual(higher.credible_interval);
  });

  test("with no units the prior answers: one half, posterior means 1/2", () => {
    const result = bayesProportions({ units: 0, conversions: 0 }, { units: 0, conversions: 0 });
    expect(result.probability_to_beat_control).toBeCloseTo(0.5, 15);
    expect(result.control_value).toBe(0.5);
    expect(result.absolute_difference).toBe(0);
  });

  test("the alpha option sets the credible level", () => {
    const wide = bayesProportions(control, treatment, { alpha: 0.01 });
    expect(wide.credible_level).toBe(0.99);
    expect(wide.credible_interval.lower).toBeLessThan(bayesProportions(control, treatment).credible_interval.lower);
  });

  test("invalid inputs are StatsInputError", () => {
    expect(() => bayesProportions({ units: 5, conversions: 6 }, treatment)).toThrow(StatsInputError);
    expect(() => bayesProportions(control, { units: -1, conversions: 0 })).toThrow("treatment.units");
    expect(() => bayesProportions(control, treatment, { alpha: 0 })).toThrow("alpha");
  });
});

describe("Bayesian means", () => {
  const control = { units: 400, mean: 20, variance: 900 };
  const treatment = { units: 500, mean: 24, variance: 1600 };

  test("flat prior, normal posteriors: P = Φ(Δ / SE), interval Δ ± z SE", () => {
    const result = bayesMeans(control, treatment);
    const se = Math.sqrt(900 / 400 + 1600 / 500);
    expect(result).toMatchObject({ method: "bayesian", model: "normal", control_value: 20, treatment_value: 24, absolute_difference: 4 });
    expect(result.probability_to_beat_control).toBeCloseTo(normalCdf(4 / se), 15);
    expect(result.credible_interval.lower).toBeCloseTo(4 - z975 * se, 13);
    expect(result.relative_difference!).toBeCloseTo(0.2, 15);
    expect(result.expected_loss_control - result.expected_loss_treatment).toBeCloseTo(4, 13);
  });

  test("identical arms: one half; zero variance: certainty or a tie", () => {
    expect(bayesMeans(control, control).probability_to_beat_control).toBe(0.5);
    const flat = (mean: number) => ({ units: 3, mean, variance: 0 });
    expect(bayesMeans(flat(1), flat(2)).probability_to_beat_control).toBe(1);
    expect(bayesMeans(flat(2), flat(1)).probability_to_beat_control).toBe(0);
    expect(bayesMeans(flat(2), flat(2)).probability_to_beat_control).toBe(0.5);
    expect(bayesMeans(flat(2), flat(1))).toMatchObject({ expected_loss_treatment: 1, expected_loss_control: 0 });
    expect(bayesMeans(flat(2), flat(1), { higher_is_better: false })).toMatchObject({ probability_to_beat_control: 1, expected_loss_treatment: 0 });
  });

  test("one unit has no variance to go on", () => {
    expect(() => bayesMeans({ units: 1, mean: 3, variance: 0 }, treatment)).toThrow("control.units must be at least 2");
  });
});
