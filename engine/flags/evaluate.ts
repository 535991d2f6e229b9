// Flag evaluation with PostHog's algorithm:
// - a disabled flag is off (flag_disabled);
// - a group-sticky flag is off when the subject has no group of that type (no_group_type);
// - rules are tried in order and the first that matches wins: all its conditions hold and the
//   rollout bucket is inside its rollout (condition_match, with that rule's index);
// - the variant is the rule's override when it names one of the flag's variants, otherwise the
//   variant whose cumulative range holds the "variant" bucket;
// - when no rule matches, the reason is the strongest seen (out_of_rollout_bound over
//   no_condition_match), with the index of the last rule that gave it, as PostHog reports it.
//
// A flag set is compiled once (FlagEvaluator) and evaluated per subject into one outcome code per
// flag (reason, rule index, variant index), which answers are written from without building a
// result object per flag; `result` turns a code into PostHog's FlagResult.

import type { EvaluationContext, FlagDefinition, FlagResult, FlagRule, FlagRuleCondition } from "./types.ts";
import { compileCohortCondition, noPropertyCohorts, type PropertyCohorts } from "./cohort-conditions.ts";
import { flagBucket, ROLLOUT_HASH_SALT, VARIANT_HASH_SALT } from "./hash.ts";
import { compileCondition, type ConditionTest } from "./match.ts";
import { PropertySlots, SlotReader } from "./property-slots.ts";
import { contextSubject, type FlagSubject } from "./subject.ts";

/** The reason codes of PostHog's /flags?v=2 (its Rust flags service). */
export const FLAG_REASON = {
  conditionMatch: "condition_match",
  noConditionMatch: "no_condition_match",
  outOfRolloutBound: "out_of_rollout_bound",
  noGroupType: "no_group_type",
  flagDisabled: "flag_disabled",
} as const;

const NO_CONDITION_MATCH_DESCRIPTION = "No matching condition set";
const OUT_OF_ROLLOUT_BOUND_DESCRIPTION = "Out of rollout bound";
const NO_GROUP_TYPE_DESCRIPTION = "No group type";
const FLAG_DISABLED_DESCRIPTION = "Feature flag is disabled";
const PERCENT = 100;

// Reasons in the order outcome codes number them.
const REASON_CODES = [
  FLAG_REASON.conditionMatch,
  FLAG_REASON.noConditionMatch,
  FLAG_REASON.outOfRolloutBound,
  FLAG_REASON.noGroupType,
  FLAG_REASON.flagDisabled,
] as const;
const CONDITION_MATCH = 0;
const NO_CONDITION_MATCH = 1;
const OUT_OF_ROLLOUT_BOUND = 2;
const NO_GROUP_TYPE = 3;
const FLAG_DISABLED = 4;
const REASON_DESCRIPTIONS: readonly string[] = ["", NO_CONDITION_MATCH_DESCRIPTION, OUT_OF_ROLLOUT_BOUND_DESCRIPTION, NO_GROUP_TYPE_DESCRIPTION, FLAG_DISABLED_DESCRIPTION];

interface CompiledRule {
  conditions: ConditionTest[];
  /** The bucket bound (rollout_percentage / 100), null for everyone. */
  rolloutBound: number | null;
  /** Index of the variant the rule forces, -1 when it forces none the flag has. */
  overrideIndex: number;
}

interface CompiledFlag {
  definition: FlagDefinition;
  rules: CompiledRule[];
  /** Group type index of a group-sticky flag, -1 when sticky to the distinct id. */
  stickyGroup: number;
  /** Exclusive upper ends of the variants' bucket ranges, in the floating-point steps PostHog takes. */
  variantEnds: number[];
}

/**
 * One outcome per evaluated flag, as a number: reason + 5 * ((rule index + 1) + (rules + 1) *
 * (variant index + 1)), with -1 for "none" in either index. Nothing else varies between the
 * results of a flag, so a code says everything an answer holds about it.
 */
export interface FlagOutcomes {
  /** How many flags were evaluated. */
  count: number;
  /** Which flags (indexes into the evaluator's flags), in their order. */
  flagIndexes: Int32Array;
  codes: Float64Array;
}

/** A compiled flag set. */
export class FlagEvaluator {
  private readonly compiled: CompiledFlag[];
  private readonly reader: SlotReader;

  /** `cohorts`: the property cohorts cohort conditions may name (any other is matched on its stored membership). */
  constructor(readonly flags: readonly FlagDefinition[], cohorts: PropertyCohorts = noPropertyCohorts) {
    const slots = new PropertySlots();
    this.compiled = flags.map((flag) => compileFlag(flag, slots, cohorts));
    this.reader = new SlotReader(slots.slots);
  }

  /** Evaluates every flag (only those named in `keys`, when given) in their order. */
  evaluate(subject: FlagSubject, keys?: readonly string[]): FlagOutcomes {
    const wanted = keys === undefined ? undefined : new Set(keys);
    const outcomes: FlagOutcomes = { count: 0, flagIndexes: new Int32Array(this.compiled.length), codes: new Float64Array(this.compiled.length) };
    this.reader.start(subject);
    let count = 0;
    for (let index = 0; index < this.compiled.length; index++) {
      const flag = this.compiled[index]!;
      if (wanted !== undefined && !wanted.has(flag.definition.key)) continue;
      outcomes.flagIndexes[count] = index;
      outcomes.codes[count] = this.outcomeOf(flag, subject);
      count++;
    }
    outcomes.count = count;
    return outcomes;
  }

  /** The FlagResult an outcome code stands for. */
  result(flagIndex: number, code: number): FlagResult {
    const flag = this.flags[flagIndex]!;
    const reason = code % REASON_CODES.length;
    const rest = (code - reason) / REASON_CODES.length;
    const ruleSlots = flag.rules.length + 1;
    const ruleIndex = (rest % ruleSlots) - 1;
    const variantIndex = Math.floor(rest / ruleSlots) - 1;
    if (reason !== CONDITION_MATCH) {
      return { key: flag.key, enabled: false, variant: null, payload: null, reason: { code: REASON_CODES[reason]!, condition_index: ruleIndex < 0 ? null : ruleIndex, description: REASON_DESCRIPTIONS[reason]! } };
    }
    const variant = variantIndex < 0 ? null : flag.variants[variantIndex]!;
    // A multivariate flag on without a variant has no payload: its payloads belong to variants.
    const payload = flag.kind === "multivariate" ? (variant?.payload ?? null) : (flag.payload ?? null);
    return {
      key: flag.key,
      enabled: true,
      variant: variant?.key ?? null,
      payload,
      reason: { code: FLAG_REASON.conditionMatch, condition_index: ruleIndex, description: `Matched condition set ${ruleIndex + 1}` },
    };
  }

  /** The FlagResults of evaluate()'s outcomes. */
  resultsOf(outcomes: FlagOutcomes): FlagResult[] {
    return Array.from({ length: outcomes.count }, (_, at) => this.result(outcomes.flagIndexes[at]!, outcomes.codes[at]!));
  }

  /** evaluate() as FlagResults. */
  results(subject: FlagSubject, keys?: readonly string[]): FlagResult[] {
    return this.resultsOf(this.evaluate(subject, keys));
  }

  private outcomeOf(flag: CompiledFlag, subject: FlagSubject): number {
    const ruleSlots = flag.rules.length + 1;
    const code = (reason: number, ruleIndex: number, variantIndex: number) => reason + REASON_CODES.length * (ruleIndex + 1 + ruleSlots * (variantIndex + 1));
    if (!flag.definition.enabled) return code(FLAG_DISABLED, -1, -1);

    let bucketingValue = subject.distinctId;
    if (flag.stickyGroup >= 0) {
      const groupKey = subject.groupKey(flag.stickyGroup);
      if (groupKey === undefined) return code(NO_GROUP_TYPE, -1, -1);
      bucketingValue = groupKey;
    }

    const { key, salt } = flag.definition;
    let rolloutBucket: number | undefined;
    let bestReason = NO_CONDITION_MATCH;
    let bestIndex = -1;
    for (let index = 0; index < flag.rules.length; index++) {
      const rule = flag.rules[index]!;
      let reason = NO_CONDITION_MATCH;
      if (this.allHold(rule.conditions)) {
        // The bucket is the same for every rule of the flag: hash once, and only when needed.
        const outOfRollout = rule.rolloutBound !== null && (rolloutBucket ??= flagBucket(key, bucketingValue, ROLLOUT_HASH_SALT, salt)) > rule.rolloutBound;
        if (!outOfRollout) return code(CONDITION_MATCH, index, variantIndexFor(flag, rule, bucketingValue));
        reason = OUT_OF_ROLLOUT_BOUND;
      }
      // PostHog keeps the most informative non-match (a rule that matched but excluded the
      // subject by rollout outranks one whose conditions failed), and the later rule on a tie.
      if (reason === OUT_OF_ROLLOUT_BOUND || bestReason === NO_CONDITION_MATCH) {
        bestReason = reason;
        bestIndex = index;
      }
    }
    return code(bestReason, bestIndex, -1);
  }

  private allHold(conditions: readonly ConditionTest[]): boolean {
    for (const condition of conditions) if (!condition(this.reader)) return false;
    return true;
  }
}

function compileFlag(flag: FlagDefinition, slots: PropertySlots, cohorts: PropertyCohorts): CompiledFlag {
  let rangeEnd = 0;
  return {
    definition: flag,
    rules: flag.rules.map((rule) => ({
      conditions: rule.properties.map((condition) => compileConditionOf(condition, slots, cohorts)),
      rolloutBound: rule.rollout_percentage === null ? null : rule.rollout_percentage / PERCENT,
      overrideIndex: hasValidVariantOverride(flag, rule) ? flag.variants.findIndex((variant) => variant.key === rule.variant) : -1,
    })),
    stickyGroup: flag.stickiness === "distinct_id" ? -1 : flag.stickiness.group_type_index,
    // Same floating-point steps as PostHog's lookup table: [start, start + share) per variant.
    variantEnds: flag.variants.map((variant) => (rangeEnd += variant.rollout_percentage / PERCENT)),
  };
}

// A group condition reads the properties of the subject's group of that type; without such a
// group (or without a group type index) it does not hold, whatever its operator.
function compileConditionOf(condition: FlagRuleCondition, slots: PropertySlots, cohorts: PropertyCohorts): ConditionTest {
  if (condition.type === "cohort") return compileCohortCondition(condition, cohorts, slots);
  if (condition.type === "person") return compileCondition(condition, slots.slotOf(null, condition.key));
  const groupTypeIndex = condition.group_type_index;
  if (groupTypeIndex === undefined) return () => false;
  const test = compileCondition(condition, slots.slotOf(groupTypeIndex, condition.key));
  return (reader) => reader.inGroup(groupTypeIndex) && test(reader);
}

/** Whether the rule forces a variant the flag has (PostHog ignores any other override). */
export function hasValidVariantOverride(flag: FlagDefinition, rule: FlagRule): boolean {
  const override = rule.variant;
  return flag.kind === "multivariate" && !!override && flag.variants.some((variant) => variant.key === override);
}

// The variant of a flag on by `rule`: -1 for boolean flags, and when the shares sum to less
// than 100 and the bucket falls past them (on without a variant, as in PostHog).
function variantIndexFor(flag: CompiledFlag, rule: CompiledRule, bucketingValue: string): number {
  if (flag.definition.kind !== "multivariate") return -1;
  if (rule.overrideIndex >= 0) return rule.overrideIndex;
  const bucket = flagBucket(flag.definition.key, bucketingValue, VARIANT_HASH_SALT, flag.definition.salt);
  let rangeStart = 0;
  for (let index = 0; index < flag.variantEnds.length; index++) {
    const rangeEnd = flag.variantEnds[index]!;
    if (bucket >= rangeStart && bucket < rangeEnd) return index;
    rangeStart = rangeEnd;
  }
  return -1;
}

/** Evaluates one flag for one subject. */
export function evaluateFlag(flag: FlagDefinition, context: EvaluationContext, cohorts: PropertyCohorts = noPropertyCohorts): FlagResult {
  return new FlagEvaluator([flag], cohorts).results(contextSubject(context))[0]!;
}

/** Evaluates `flags` (only those named in `keys`, when given) in their order. */
export function evaluateFlags(flags: readonly FlagDefinition[], context: EvaluationContext, keys?: readonly string[], cohorts: PropertyCohorts = noPropertyCohorts): FlagResult[] {
  return new FlagEvaluator(flags, cohorts).results(contextSubject(context), keys);
}
