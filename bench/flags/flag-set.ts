// Seeded generator of the 50 flags the benchmark evaluates: booleans with rollouts, multivariate
// flags with payloads, rules of 1-3 conditions over the person properties that persons.ts sends,
// a few flags sticky to the company group with group conditions, and a few left disabled.
// Counts of each kind are fixed by position so every seed gives the same mix.
import { mulberry32 } from "../ingest/generator.ts";
import { companyProperties, personProperties, type PropertyDomain } from "./persons.ts";

export const flagCount = 50;
/** Positions 0..3 are sticky to the company group, 4..17 multivariate, the rest boolean. */
const groupStickyCount = 4;
const multivariateCount = 14;
/** Every tenth flag stays disabled in production (5 of 50). */
const disabledEvery = 10;
const rollouts = [null, 100, 75, 50, 25, 10];
const operators = ["eq", "neq", "in", "not_in", "contains", "not_contains", "regex", "not_regex", "gt", "gte", "lt", "lte", "is_set", "is_not_set"] as const;
type Operator = (typeof operators)[number];

export interface FlagCondition {
  type: "person" | "group";
  key: string;
  operator: Operator;
  value?: string | number | boolean | (string | number)[];
  group_type?: string;
}

export interface FlagRule {
  properties: FlagCondition[];
  rollout_percentage: number | null;
  variant?: string;
}

export interface FlagCreate {
  key: string;
  name: string;
  kind: "boolean" | "multivariate";
  payload?: unknown;
  rules?: FlagRule[];
  stickiness?: string;
  variants?: { key: string; rollout_percentage: number; payload: unknown }[];
}

export interface GeneratedFlag {
  create: FlagCreate;
  /** Enabled in production (the others stay disabled and answer `flag_disabled`). */
  enabled: boolean;
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const between = (random: Random, low: number, high: number) => low + Math.floor(random() * (high - low + 1));

/** Operators that make sense for a property's kind (no ordering on booleans, no regex on numbers). */
function operatorsFor(domain: PropertyDomain): readonly Operator[] {
  if (domain.kind === "number") return ["eq", "neq", "gt", "gte", "lt", "lte", "is_set", "is_not_set"];
  if (domain.kind === "boolean") return ["eq", "neq", "is_set"];
  return operators.filter((operator) => !["gt", "gte", "lt", "lte"].includes(operator));
}

function conditionValue(random: Random, domain: PropertyDomain, operator: Operator): FlagCondition["value"] {
  if (operator === "is_set" || operator === "is_not_set") return undefined;
  if (domain.kind === "number") return between(random, domain.min, domain.max);
  if (domain.kind === "boolean") return random() < 0.5;
  const values = domain.values;
  if (operator === "in" || operator === "not_in") return Array.from({ length: between(random, 1, 3) }, () => pick(random, values));
  if (operator === "contains" || operator === "not_contains") {
    const value = pick(random, values);
    const start = Math.floor(random() * Math.max(1, value.length - 3));
    return value.slice(start, start + 3);
  }
  if (operator === "regex" || operator === "not_regex") return `^(${pick(random, values)}|${pick(random, values)})`.replace(/[.+]/g, "\\$&");
  return pick(random, values);
}

function condition(random: Random, type: "person" | "group"): FlagCondition {
  const domains = type === "person" ? personProperties : companyProperties;
  const domain = pick(random, domains);
  const operator = pick(random, operatorsFor(domain));
  const value = conditionValue(random, domain, operator);
  return { type, key: domain.key, operator, ...(value === undefined ? {} : { value }), ...(type === "group" ? { group_type: "company" } : {}) };
}

function rules(random: Random, type: "person" | "group", variants: string[]): FlagRule[] {
  return Array.from({ length: between(random, 1, 3) }, () => ({
    properties: Array.from({ length: between(random, 1, 3) }, () => condition(random, type)),
    rollout_percentage: pick(random, rollouts),
    // Some rules of multivariate flags force a variant, as experiments' holdouts do.
    ...(variants.length > 0 && random() < 0.25 ? { variant: pick(random, variants) } : {}),
  }));
}

/** Shares of `count` variants summing to 100. */
function variantShares(random: Random, count: number): number[] {
  const weights = Array.from({ length: count }, () => 1 + random() * 3);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const shares = weights.map((weight) => Math.floor((100 * weight) / total));
  shares[0]! += 100 - shares.reduce((sum, share) => sum + share, 0);
  return shares;
}

export function generateFlags(seed: number): GeneratedFlag[] {
  const random = mulberry32(seed);
  return Array.from({ length: flagCount }, (_, index): GeneratedFlag => {
    const groupSticky = index < groupStickyCount;
    const multivariate = !groupSticky && index < groupStickyCount + multivariateCount;
    const key = `bench-${groupSticky ? "company" : multivariate ? "experiment" : "feature"}-${index}`;
    const create: FlagCreate = { key, name: `Bench flag ${index}`, kind: multivariate ? "multivariate" : "boolean" };
    if (multivariate) {
      const count = between(random, 2, 4);
      const shares = variantShares(random, count);
      create.variants = shares.map((share, at) => ({ key: `variant-${at}`, rollout_percentage: share, payload: { layout: `layout-${at}`, weight: share } }));
    } else if (random() < 0.5) {
      create.payload = { banner: `banner-${index}`, limit: between(random, 1, 100) };
    }
    if (groupSticky) create.stickiness = "group:company";
    // A quarter of person-targeted flags have no rules: on for everyone once enabled.
    if (groupSticky || random() < 0.75) create.rules = rules(random, groupSticky ? "group" : "person", create.variants?.map((variant) => variant.key) ?? []);
    return { create, enabled: index % disabledEvery !== disabledEvery - 1 };
  });
}
