// A flag's configuration in one environment, as stored and published: rules (OR of rules,
// each an AND of conditions with a rollout), variants (multivariate flags, rollouts summing
// to 100), payload, salt and stickiness. Validation here covers what a schema cannot say:
// operator/value agreement, variant references, the 100% sum, stickiness forms.
import { validation } from "../../http/errors.ts";
import type { FlagConditionInput, FlagRuleInput, FlagVariantInput } from "./flag-schemas.ts";

export type FlagKind = "boolean" | "multivariate";

export interface StoredRule {
  properties: FlagConditionInput[];
  rollout_percentage: number | null;
  variant: string | null;
}

export interface StoredVariant {
  key: string;
  name: string | null;
  rollout_percentage: number;
  payload: unknown;
}

export interface FlagConfig {
  enabled: boolean;
  payload: unknown;
  rules: StoredRule[];
  salt: string;
  stickiness: string;
  variants: StoredVariant[];
}

export const distinctIdStickiness = "distinct_id";
const groupStickinessPrefix = "group:";
/** Variant rollouts must add up to 100 within this (they are decimals). */
const rolloutSumTolerance = 1e-9;
const multivariateVariantsMin = 2;

/** A new flag's rule when the request names none: everyone (once the flag is enabled). */
export const everyoneRule = (): StoredRule => ({ properties: [], rollout_percentage: null, variant: null });

/** A cohort condition is stored with its operator (default in) and its id in lower case. */
const normalizeCondition = (condition: FlagConditionInput): FlagConditionInput =>
  condition.type === "cohort" ? { ...condition, operator: condition.operator ?? "in", ...(condition.cohort_id === undefined ? {} : { cohort_id: condition.cohort_id.toLowerCase() }) } : condition;

export const normalizeRules = (rules: FlagRuleInput[]): StoredRule[] =>
  rules.map((rule) => ({ properties: (rule.properties ?? []).map(normalizeCondition), rollout_percentage: rule.rollout_percentage ?? null, variant: rule.variant ?? null }));

export const normalizeVariants = (variants: FlagVariantInput[]): StoredVariant[] =>
  variants.map((variant) => ({ key: variant.key, name: variant.name ?? null, rollout_percentage: variant.rollout_percentage, payload: variant.payload ?? null }));

/** The group type a stickiness names, or null for the distinct id. */
export function stickinessGroupType(stickiness: string): string | null {
  if (stickiness === distinctIdStickiness) return null;
  return stickiness.slice(groupStickinessPrefix.length);
}

function checkCohortCondition(condition: FlagConditionInput, where: string): void {
  if (condition.cohort_id === undefined) throw validation(`${where}: a cohort condition needs cohort_id`);
  const extra = (["key", "value", "group_type"] as const).find((member) => condition[member] !== undefined);
  if (extra) throw validation(`${where}: a cohort condition takes cohort_id and operator only, not ${extra}`);
  if (condition.operator !== "in" && condition.operator !== "not_in") throw validation(`${where}: a cohort condition's operator is in or not_in`);
}

function checkCondition(condition: FlagConditionInput, where: string): void {
  if (condition.type === "cohort") return checkCohortCondition(condition, where);
  const { operator, value } = condition;
  if (condition.cohort_id !== undefined) throw validation(`${where}: cohort_id is only for cohort conditions`);
  if (condition.key === undefined) throw validation(`${where}: a ${condition.type} condition needs key`);
  if (operator === undefined) throw validation(`${where}: a ${condition.type} condition needs operator`);
  if (condition.type === "group" && condition.group_type === undefined) throw validation(`${where}: a group condition needs group_type`);
  if (condition.type === "person" && condition.group_type !== undefined) throw validation(`${where}: group_type is only for group conditions`);
  if (operator === "is_set" || operator === "is_not_set") {
    if (value !== undefined) throw validation(`${where}: ${operator} takes no value`);
    return;
  }
  if (value === undefined) throw validation(`${where}: ${operator} needs a value`);
  if (operator === "in" || operator === "not_in") {
    if (!Array.isArray(value)) throw validation(`${where}: ${operator} needs an array value`);
    return;
  }
  if (Array.isArray(value)) throw validation(`${where}: ${operator} needs a single value (use in or not_in for a list)`);
  if ((operator === "gt" || operator === "gte" || operator === "lt" || operator === "lte") && typeof value === "boolean") {
    throw validation(`${where}: ${operator} compares numbers or text, not booleans`);
  }
  if (operator === "regex" || operator === "not_regex") {
    if (typeof value !== "string") throw validation(`${where}: ${operator} needs a pattern string`);
    try {
      new RegExp(value);
    } catch {
      throw validation(`${where}: ${JSON.stringify(value)} is not a valid regular expression`);
    }
  }
}

/** Throws a validation error naming the first problem of a configuration for a flag of `kind`. */
export function checkConfig(kind: FlagKind, config: FlagConfig): void {
  const { stickiness, variants, rules } = config;
  if (stickiness !== distinctIdStickiness && !(stickiness.startsWith(groupStickinessPrefix) && stickiness.length > groupStickinessPrefix.length)) {
    throw validation(`stickiness must be "${distinctIdStickiness}" or "${groupStickinessPrefix}<group type>"`);
  }
  if (kind === "boolean") {
    if (variants.length > 0) throw validation("a boolean flag has no variants (create it with kind multivariate)");
  } else {
    if (variants.length < multivariateVariantsMin) throw validation(`a multivariate flag needs at least ${multivariateVariantsMin} variants`);
    const keys = new Set(variants.map((variant) => variant.key));
    if (keys.size !== variants.length) throw validation("variant keys must be unique");
    const sum = variants.reduce((total, variant) => total + variant.rollout_percentage, 0);
    if (Math.abs(sum - 100) > rolloutSumTolerance) throw validation(`variant rollout percentages must sum to 100 (they sum to ${sum})`);
    if (config.payload !== null) throw validation("a multivariate flag carries payloads on its variants, not on the flag");
  }
  rules.forEach((rule, r) => {
    if (rule.variant !== null && !variants.some((variant) => variant.key === rule.variant)) {
      throw validation(`rules[${r}].variant: ${JSON.stringify(rule.variant)} is not one of the flag's variants`);
    }
    rule.properties.forEach((condition, c) => checkCondition(condition, `rules[${r}].properties[${c}]`));
  });
}
