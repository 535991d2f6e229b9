// Flag evaluation with PostHog's algorithm:
// - a disabled flag is off (flag_disabled);
// - a group-sticky flag is off when the subject has no group of that type (no_group_type);
// - rules are tried in order and the first that matches wins: all its conditions hold and the
//   rollout bucket is inside its rollout (condition_match, with that rule's index);
// - the variant is the rule's override when it names one of the flag's variants, otherwise the
//   variant whose cumulative range holds the "variant" bucket;
// - when no rule matches, the reason is the strongest seen (out_of_rollout_bound over
//   no_condition_match), with the index of the last rule that gave it, as PostHog reports it.

import type { EvaluationContext, FlagCondition, FlagDefinition, FlagResult, FlagRule } from "./types.ts";
import { flagBucket, ROLLOUT_HASH_SALT, VARIANT_HASH_SALT } from "./hash.ts";
import { conditionMatches } from "./match.ts";

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

// PostHog keeps the most informative non-match: a rule that matched but excluded the subject by
// rollout outranks one whose conditions failed.
const NO_CONDITION_MATCH_RANK = 0;
const OUT_OF_ROLLOUT_BOUND_RANK = 1;

interface GroupMembership {
  key: string;
  properties: Record<string, unknown>;
}

// The context prepared once per request and shared by every flag evaluated for it.
interface Subject {
  distinctId: string;
  personProperties: Record<string, unknown>;
  group(groupTypeIndex: number): GroupMembership | undefined;
}

/** Evaluates one flag for one subject. */
export function evaluateFlag(flag: FlagDefinition, context: EvaluationContext): FlagResult {
  return evaluateForSubject(flag, subjectOf(context));
}

/** Evaluates `flags` (only those named in `keys`, when given) in their order. */
export function evaluateFlags(
  flags: readonly FlagDefinition[],
  context: EvaluationContext,
  keys?: readonly string[],
): FlagResult[] {
  const subject = subjectOf(context);
  const wanted = keys === undefined ? undefined : new Set(keys);
  const results: FlagResult[] = [];
  for (const flag of flags) {
    if (wanted === undefined || wanted.has(flag.key)) results.push(evaluateForSubject(flag, subject));
  }
  return results;
}

// posthog-node adds `distinct_id` to the person properties and `$group_key` to each group's
// properties before evaluating locally (a property of the same name passed in wins), so we do too.
function subjectOf(context: EvaluationContext): Subject {
  const memberships = new Map<number, GroupMembership | undefined>();
  return {
    distinctId: context.distinct_id,
    personProperties: { distinct_id: context.distinct_id, ...context.person_properties },
    group(groupTypeIndex) {
      if (!memberships.has(groupTypeIndex)) {
        memberships.set(groupTypeIndex, membershipOf(context, groupTypeIndex));
      }
      return memberships.get(groupTypeIndex);
    },
  };
}

function membershipOf(context: EvaluationContext, groupTypeIndex: number): GroupMembership | undefined {
  const groupType = context.group_types[groupTypeIndex];
  if (groupType === undefined || !Object.hasOwn(context.groups, groupType)) return undefined;
  const key = String(context.groups[groupType]);
  const properties = Object.hasOwn(context.group_properties, groupType)
    ? context.group_properties[groupType]
    : undefined;
  return { key, properties: { $group_key: key, ...properties } };
}

function evaluateForSubject(flag: FlagDefinition, subject: Subject): FlagResult {
  if (!flag.enabled) return offResult(flag, FLAG_REASON.flagDisabled, null, FLAG_DISABLED_DESCRIPTION);

  let bucketingValue = subject.distinctId;
  if (flag.stickiness !== "distinct_id") {
    const membership = subject.group(flag.stickiness.group_type_index);
    if (membership === undefined) {
      return offResult(flag, FLAG_REASON.noGroupType, null, NO_GROUP_TYPE_DESCRIPTION);
    }
    bucketingValue = membership.key;
  }

  let rolloutBucket: number | undefined;
  let bestRank = NO_CONDITION_MATCH_RANK;
  let bestIndex: number | null = null;
  for (let index = 0; index < flag.rules.length; index++) {
    const rule = flag.rules[index]!;
    let rank = NO_CONDITION_MATCH_RANK;
    if (rule.properties.every((condition) => holds(condition, subject))) {
      // The bucket is the same for every rule of the flag: hash once, and only when needed.
      const outOfRollout =
        rule.rollout_percentage !== null &&
        (rolloutBucket ??= flagBucket(flag.key, bucketingValue, ROLLOUT_HASH_SALT, flag.salt)) >
          rule.rollout_percentage / PERCENT;
      if (!outOfRollout) return onResult(flag, index, variantFor(flag, rule, bucketingValue));
      rank = OUT_OF_ROLLOUT_BOUND_RANK;
    }
    if (rank >= bestRank) {
      bestRank = rank;
      bestIndex = index;
    }
  }
  return bestRank === OUT_OF_ROLLOUT_BOUND_RANK
    ? offResult(flag, FLAG_REASON.outOfRolloutBound, bestIndex, OUT_OF_ROLLOUT_BOUND_DESCRIPTION)
    : offResult(flag, FLAG_REASON.noConditionMatch, bestIndex, NO_CONDITION_MATCH_DESCRIPTION);
}

// A group condition reads the properties of the subject's group of that type; without such a
// group (or without a group type index) it does not hold, whatever its operator.
function holds(condition: FlagCondition, subject: Subject): boolean {
  if (condition.type === "person") return conditionMatches(condition, subject.personProperties);
  if (condition.group_type_index === undefined) return false;
  const membership = subject.group(condition.group_type_index);
  return membership !== undefined && conditionMatches(condition, membership.properties);
}

/** Whether the rule forces a variant the flag has (PostHog ignores any other override). */
export function hasValidVariantOverride(flag: FlagDefinition, rule: FlagRule): boolean {
  const override = rule.variant;
  return flag.kind === "multivariate" && !!override && flag.variants.some((variant) => variant.key === override);
}

function variantFor(flag: FlagDefinition, rule: FlagRule, bucketingValue: string): string | null {
  if (flag.kind !== "multivariate") return null;
  if (hasValidVariantOverride(flag, rule)) return rule.variant;
  const bucket = flagBucket(flag.key, bucketingValue, VARIANT_HASH_SALT, flag.salt);
  // Same floating-point steps as PostHog's lookup table: [start, start + share) per variant.
  let rangeStart = 0;
  for (const variant of flag.variants) {
    const rangeEnd = rangeStart + variant.rollout_percentage / PERCENT;
    if (bucket >= rangeStart && bucket < rangeEnd) return variant.key;
    rangeStart = rangeEnd;
  }
  // Shares summing to less than 100 leave the flag on without a variant, as in PostHog.
  return null;
}

function onResult(flag: FlagDefinition, ruleIndex: number, variant: string | null): FlagResult {
  // A multivariate flag on without a variant has no payload: its payloads belong to variants.
  const payload =
    flag.kind === "multivariate"
      ? (flag.variants.find((candidate) => candidate.key === variant)?.payload ?? null)
      : (flag.payload ?? null);
  return {
    key: flag.key,
    enabled: true,
    variant,
    payload,
    reason: {
      code: FLAG_REASON.conditionMatch,
      condition_index: ruleIndex,
      description: `Matched condition set ${ruleIndex + 1}`,
    },
  };
}

function offResult(
  flag: FlagDefinition,
  code: string,
  conditionIndex: number | null,
  description: string,
): FlagResult {
  return {
    key: flag.key,
    enabled: false,
    variant: null,
    payload: null,
    reason: { code, condition_index: conditionIndex, description },
  };
}
