// Which flags PostHog SDKs may evaluate locally from /flags/definitions. A flag the SDK could
// answer differently from our server is published with `ensure_experience_continuity: true`:
// posthog-node (and every PostHog SDK) then never evaluates it locally and asks the server
// (or, with onlyEvaluateLocally, leaves it unresolved).

import type { FlagDefinition, FlagOperator, FlagRuleCondition } from "./types.ts";
import { hasValidVariantOverride } from "./evaluate.ts";
import { MATCHES_WHEN_PROPERTY_ABSENT } from "./match.ts";
import { equalityText, isTruthyOrFalsyLike } from "./property-values.ts";

export type RemoteOnlyCause =
  /** A non-empty salt: PostHog SDKs hash without it. */
  | "salt"
  /** A person condition on a group-sticky flag, or a group condition on a flag sticky to
   *  something else: PostHog reads one property set per flag. */
  | "mixed_targeting"
  /** eq/neq/in/not_in against an empty list: PostHog compares that by truthiness. */
  | "empty_list"
  /** A value operator without a value: SDKs disagree with each other on it. */
  | "missing_value"
  /** A rule the SDK may be unable to decide while our server finds it matching, followed by a
   *  rule giving another variant: posthog-node skips undecided rules and would take that one. */
  | "undecidable_rule_before_other_variant"
  /** A variant override after a rule without one: older PostHog SDKs (and the Go, Ruby, PHP
   *  and Java ones) evaluate override rules first. */
  | "override_after_plain_rule";

const OPERATORS_WITHOUT_VALUE: ReadonlySet<FlagOperator> = new Set(["is_set", "is_not_set"]);
const EQUALITY_OPERATORS: ReadonlySet<FlagOperator> = new Set(["eq", "neq", "in", "not_in"]);

/** Why `flag` must be evaluated by our server only; empty when SDKs may evaluate it locally. */
export function remoteOnlyCauses(flag: FlagDefinition): RemoteOnlyCause[] {
  const causes: RemoteOnlyCause[] = [];
  const conditions = flag.rules.flatMap((rule) => rule.properties);
  if (flag.salt !== "") causes.push("salt");
  if (conditions.some((condition) => !readsFlagPropertySet(flag, condition))) causes.push("mixed_targeting");
  if (conditions.some(comparesWithEmptyList)) causes.push("empty_list");
  if (conditions.some(lacksValue)) causes.push("missing_value");
  if (flag.kind === "multivariate") {
    if (undecidableRuleBeforeOtherVariant(flag)) causes.push("undecidable_rule_before_other_variant");
    if (overrideAfterPlainRule(flag)) causes.push("override_after_plain_rule");
  }
  return causes;
}

// A cohort condition is about the subject's person (a property cohort reads person properties).
function readsFlagPropertySet(flag: FlagDefinition, condition: FlagRuleCondition): boolean {
  if (flag.stickiness === "distinct_id") return condition.type === "person" || condition.type === "cohort";
  return condition.type === "group" && condition.group_type_index === flag.stickiness.group_type_index;
}

function comparesWithEmptyList(condition: FlagRuleCondition): boolean {
  if (condition.type === "cohort") return false;
  const { operator, value } = condition;
  return EQUALITY_OPERATORS.has(operator) && Array.isArray(value) && value.length === 0;
}

function lacksValue(condition: FlagRuleCondition): boolean {
  if (condition.type === "cohort") return false;
  const { operator, value } = condition;
  return !OPERATORS_WITHOUT_VALUE.has(operator) && (value === undefined || value === null);
}

// posthog-node cannot decide a condition locally when the property is absent (every operator), or
// when equality meets an integer or a list/object value (it cannot tell 5 from 5.0). That only
// changes an answer when our server would find the condition true: a negated operator on an
// absent property, or an equality whose value reads like an integer or a JSON list/object.
// Comparisons by truthiness ("true"/"false") are decided locally whatever the property holds.
// A cohort condition may hold where the SDK cannot decide it: a property cohort's criteria are
// conditions like these, and a cohort matched on its stored membership is never decided locally.
function mayMatchWhereSdkCannotDecide(condition: FlagRuleCondition): boolean {
  if (condition.type === "cohort") return true;
  if (MATCHES_WHEN_PROPERTY_ABSENT[condition.operator]) return true;
  if (condition.operator !== "eq" && condition.operator !== "in") return false;
  const target = condition.value;
  if (target === undefined || isTruthyOrFalsyLike(target)) return false;
  const items = Array.isArray(target) ? target : [target];
  return items.some((item) => {
    const text = equalityText(item).trim();
    return (text !== "" && Number.isInteger(Number(text))) || text.startsWith("[") || text.startsWith("{");
  });
}

// Rules are compared by what they give when they match: their override, or the hashed variant.
function undecidableRuleBeforeOtherVariant(flag: FlagDefinition): boolean {
  const outcomes = flag.rules.map((rule) => (hasValidVariantOverride(flag, rule) ? rule.variant : null));
  return flag.rules.some(
    (rule, index) =>
      rule.properties.some(mayMatchWhereSdkCannotDecide) &&
      outcomes.slice(index + 1).some((laterOutcome) => laterOutcome !== outcomes[index]),
  );
}

function overrideAfterPlainRule(flag: FlagDefinition): boolean {
  const firstPlainRule = flag.rules.findIndex((rule) => !hasValidVariantOverride(flag, rule));
  if (firstPlainRule === -1) return false;
  return flag.rules.slice(firstPlainRule + 1).some((rule) => hasValidVariantOverride(flag, rule));
}
