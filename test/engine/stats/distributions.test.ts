// The special functions and distributions against closed forms and published values (R's
// qnorm, qt, pchisq; the digits were checked against 30-digit arithmetic).
import { describe, expect, test } from "bun:test";
import {
  chiSquareCdf, chiSquareSurvival, normalCdf, normalDensity, normalQuantile, studentTCdf, studentTQuantile,
} from "../../../engine/stats/distributions.ts";
import { logBeta, logGamma, regularizedBeta, regularizedGammaP, regularizedGammaQ } from "../../../engine/stats/special-functions.ts";

const relativeError = (actual: number, expected: number) => Math.abs(actual / expected - 1);
const probabilities = [1e-12, 1e-6, 0.001, 0.01, 0.02425, 0.05, 0.1, 0.25, 0.4, 0.5, 0.6, 0.8, 0.9, 0.975, 0.999];

describe("log-gamma and log-beta", () => {
  test("ln Γ(n) = ln (n - 1)! for whole n", () => {
    let factorial = 1;
    for (let n = 1; n <= 25; n++) {
      expect(logGamma(n)).toBeCloseTo(Math.log(factorial), 12);
      factorial *= n;
    }
  });

  test("ln Γ(1/2) = ln √π, and the reflection branch below 1/2: Γ(1/4) Γ(3/4) = π √2", () => {
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 14);
    expect(logGamma(0.25) + logGamma(0.75)).toBeCloseTo(Math.log(Math.PI * Math.SQRT2), 14);
  });

  test("ln Γ(x + 1) = ln Γ(x) + ln x across scales", () => {
    for (const x of [0.1, 1.5, 7.3, 123.4, 98765.4]) expect(logGamma(x + 1)).toBeCloseTo(logGamma(x) + Math.log(x), 9);
  });

  test("the Stirling path for large arguments agrees with the log-gamma difference", () => {
    for (const [a, b] of [[30, 2], [45.5, 3.25], [200, 0.5], [31, 31]] as const) {
      expect(logBeta(a, b)).toBeCloseTo(logGamma(a) + logGamma(b) - logGamma(a + b), 12);
    }
  });

  test("ln B(5e5, 1/2) keeps full precision (a difference of two log-gammas near 6e6 would not)", () => {
    expect(relativeError(logBeta(5e5, 0.5), -5.988816495777464)).toBeLessThan(1e-14);
    expect(logBeta(0.5, 5e5)).toBe(logBeta(5e5, 0.5));
  });
});

describe("regularized incomplete gamma and beta", () => {
  test("P(1, x) = 1 - e^-x; P + Q = 1 on both sides of the series/fraction switch", () => {
    for (const x of [0.01, 0.5, 1, 2, 5, 30]) {
      expect(regularizedGammaP(1, x)).toBeCloseTo(-Math.expm1(-x), 14);
      expect(relativeError(regularizedGammaQ(1, x), Math.exp(-x))).toBeLessThan(1e-13);
    }
    for (const [a, x] of [[0.5, 0.2], [3, 2], [3, 7], [50, 45], [50, 60]] as const) {
      expect(regularizedGammaP(a, x) + regularizedGammaQ(a, x)).toBeCloseTo(1, 14);
    }
    expect(regularizedGammaP(2, 0)).toBe(0);
    expect(regularizedGammaQ(2, Infinity)).toBe(0);
  });

  test("closed forms: I_x(1, 1) = x, I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b", () => {
    for (const x of [0.001, 0.2, 0.5, 0.77, 0.999]) {
      expect(regularizedBeta(x, 1, 1)).toBeCloseTo(x, 14);
      expect(regularizedBeta(x, 3.5, 1)).toBeCloseTo(x ** 3.5, 14);
      expect(regularizedBeta(x, 1, 4)).toBeCloseTo(1 - (1 - x) ** 4, 14);
    }
  });

  test("symmetry I_x(a, b) = 1 - I_{1-x}(b, a) and a published value", () => {
    for (const [x, a, b] of [[0.3, 2.5, 4.5], [0.9, 10, 2], [0.05, 0.5, 30]] as const) {
      expect(regularizedBeta(x, a, b)).toBeCloseTo(1 - regularizedBeta(1 - x, b, a), 14);
    }
    expect(regularizedBeta(0.3, 2.5, 4.5)).toBeCloseTo(0.4065390166824593, 14);
    expect(regularizedBeta(0, 2, 3)).toBe(0);
    expect(regularizedBeta(1, 2, 3)).toBe(1);
  });
});

describe("normal distribution", () => {
  test("quantiles: qnorm(0.975), qnorm(0.8), qnorm(0.995), qnorm(1e-10)", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 14);
    expect(normalQuantile(0.8)).toBeCloseTo(0.8416212335729143, 14);
    expect(normalQuantile(0.995)).toBeCloseTo(2.5758293035489008, 14);
    expect(relativeError(normalQuantile(1e-10), -6.361340902404056)).toBeLessThan(1e-14);
    expect(normalQuantile(0.5)).toBe(0);
  });

  test("quantile is antisymmetric and inverts the CDF to near double precision", () => {
    for (const p of probabilities) {
      const upper = 1 - p; // 1 - upper is exact, while 1 - p may not equal p's complement
      expect(normalQuantile(upper)).toBeCloseTo(-normalQuantile(1 - upper), 12);
      expect(relativeError(normalCdf(normalQuantile(p)), p)).toBeLessThan(1e-13);
    }
  });

  test("CDF values, far tail and limits", () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(1.96)).toBeCloseTo(0.9750021048517796, 15);
    expect(normalCdf(-1)).toBeCloseTo(0.15865525393145705, 15);
    expect(relativeError(normalCdf(-30), 4.906713927148187e-198)).toBeLessThan(1e-12);
    expect(normalCdf(-Infinity)).toBe(0);
    expect(normalCdf(Infinity)).toBe(1);
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(normalQuantile(1.5)).toBeNaN();
  });

  test("density integrates to the CDF (Simpson's rule over [-1, 2])", () => {
    const steps = 2000;
    const width = 3 / steps;
    let integral = 0;
    for (let i = 0; i <= steps; i++) {
      const weight = i === 0 || i === steps ? 1 : i % 2 === 1 ? 4 : 2;
      integral += weight * normalDensity(-1 + i * width);
    }
    expect((integral * width) / 3).toBeCloseTo(normalCdf(2) - normalCdf(-1), 12);
  });
});

describe("Student t distribution", () => {
  test("ν = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/π", () => {
    for (const t of [-50, -3, -0.5, 0, 0.7, 12.7]) expect(studentTCdf(t, 1)).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 14);
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(Math.tan(0.475 * Math.PI), 10);
    expect(relativeError(studentTQuantile(0.0005, 1), Math.tan(-0.4995 * Math.PI))).toBeLessThan(1e-11);
  });

  test("ν = 2 closed forms: F(t) = 1/2 + t / (2 √(2 + t²)), t_p = (2p - 1) / √(2p(1 - p))", () => {
    for (const t of [-8, -1, 0.3, 2.5]) expect(studentTCdf(t, 2)).toBeCloseTo(0.5 + t / (2 * Math.sqrt(2 + t * t)), 14);
    for (const p of [0.01, 0.3, 0.9, 0.995]) expect(studentTQuantile(p, 2)).toBeCloseTo((2 * p - 1) / Math.sqrt(2 * p * (1 - p)), 11);
  });

  test("table quantiles: qt(0.975, 10), qt(0.975, 30), qt(0.95, 5), qt(0.995, 20), fractional ν", () => {
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.2281388519862747, 12);
    expect(studentTQuantile(0.975, 30)).toBeCloseTo(2.0422724563012383, 12);
    expect(studentTQuantile(0.95, 5)).toBeCloseTo(2.0150483733330242, 12);
    expect(studentTQuantile(0.995, 20)).toBeCloseTo(2.8453397097861085, 12);
    expect(studentTQuantile(0.975, 2.5)).toBeCloseTo(3.574654842003683, 11);
    expect(studentTQuantile(0.025, 10)).toBeCloseTo(-2.2281388519862747, 12);
    expect(studentTCdf(2, 10)).toBeCloseTo(0.9633059826146298, 14);
  });

  test("quantile inverts the CDF; many degrees of freedom approach the normal", () => {
    for (const degreesOfFreedom of [1, 3.7, 12, 250, 1e6]) {
      for (const p of probabilities) expect(relativeError(studentTCdf(studentTQuantile(p, degreesOfFreedom), degreesOfFreedom), p)).toBeLessThan(1e-8);
    }
    // The t quantile exceeds the normal one by about (z³ + z) / (4ν).
    const z = normalQuantile(0.975);
    expect(studentTQuantile(0.975, 1e6) - z).toBeCloseTo((z ** 3 + z) / 4e6, 9);
    expect(studentTQuantile(0.975, 1e9)).toBe(z);
    expect(studentTQuantile(0.5, 7)).toBe(0);
  });
});

describe("chi-square distribution", () => {
  test("critical values: qchisq(0.95, 1), qchisq(0.95, 2) = -2 ln 0.05, qchisq(0.999, 3)", () => {
    expect(chiSquareCdf(3.841458820694124, 1)).toBeCloseTo(0.95, 14);
    expect(chiSquareCdf(-2 * Math.log(0.05), 2)).toBeCloseTo(0.95, 14);
    expect(chiSquareSurvival(16.26623619623813, 3)).toBeCloseTo(0.001, 14);
  });

  test("one degree of freedom is a squared normal; two is exponential", () => {
    for (const z of [0.1, 1, 2.5, 6]) expect(relativeError(chiSquareSurvival(z * z, 1), 2 * normalCdf(-z))).toBeLessThan(1e-12);
    for (const x of [0.2, 3, 40]) expect(relativeError(chiSquareSurvival(x, 2), Math.exp(-x / 2))).toBeLessThan(1e-12);
  });

  test("small p-values keep their precision", () => {
    expect(relativeError(chiSquareSurvival(50, 3), 7.989179244951471e-11)).toBeLessThan(1e-12);
    expect(chiSquareSurvival(0, 4)).toBe(1);
  });
});
