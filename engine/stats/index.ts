// Statistics for A/B experiments: pure functions over plain numbers, results as snake_case
// objects ready for JSON. docs/experiment-statistics.md has the formulas and decisions.

/** Recorded with every result (ExperimentResultsDto.stats_version); raise it when any formula changes. */
export const statsVersion = 1;

export { StatsInputError } from "./errors.ts";
export { meanArmFromSums, meanArmFromValues, meanArmUnitsMin, type MeanArm, type MeanSums, type ProportionArm } from "./arms.ts";
export { alphaDefault, comparisonAlpha, powerDefault } from "./significance.ts";
export type { Interval } from "./intervals.ts";
export { chiSquareCdf, chiSquareSurvival, normalCdf, normalQuantile, studentTCdf, studentTQuantile } from "./distributions.ts";
export {
  planExperiment, variantsDefault, type DetectableEffect, type ExperimentPlan, type MdeKind, type PlanInput, type PlanMetric, type PlanResult,
} from "./plan.ts";
export { compareMeans, compareProportions, proportionArmUnitsMin, type ComparisonOptions, type FrequentistComparison } from "./frequentist.ts";
export { bayesianProportionArmUnitsMin, bayesMeans, bayesProportions, type BayesianComparison, type BayesianOptions } from "./bayesian.ts";
export { cupedFromSums, cupedFromUnits, type CupedResult, type CupedSums, type CupedUnits } from "./cuped.ts";
export { winsorCap, winsorizeArms, type WinsorizedArms } from "./winsor.ts";
export { sampleRatioMismatch, srmPValueThreshold, type SampleRatioCheck } from "./srm.ts";
export { checkGuardrail, type GuardrailCheck, type GuardrailRule, type GuardrailStatus, type MarginKind } from "./guardrail.ts";
