// The local-evaluation document PostHog SDKs download from `GET /flags/definitions` (and, in
// older SDKs, `/api/feature_flag/local_evaluation`), built from our flag model so that an SDK
// evaluating it gets the answers our evaluator gives. Property cohorts that flags name are in
// its `cohorts` (PostHog's property groups); a cohort condition naming any other cohort makes
// the SDK ask the server (posthog-node: RequiresServerEvaluation, "not found in local cohorts").

import type { FlagCondition, FlagConditionScalar, FlagDefinition, FlagOperator, FlagRuleCondition } from "./types.ts";
import { isGroup, type CohortGroup } from "../cohorts/definition.ts";
import { noPropertyCohorts, type PropertyCohorts } from "./cohort-conditions.ts";
import { hasValidVariantOverride } from "./evaluate.ts";
import { remoteOnlyCauses } from "./local-evaluation.ts";
import { posthogPayloadText } from "./payloads.ts";

export type PosthogPropertyValue = FlagConditionScalar | FlagConditionScalar[] | null;

export interface PosthogPropertyFilter {
  key: string;
  value: PosthogPropertyValue;
  operator: string;
  type: "person" | "group" | "cohort";
  group_type_index?: number;
}

/** PostHog's cohort definition: a list of groups, or a list of filters, combined by AND or OR. */
export interface PosthogPropertyGroup {
  type: "AND" | "OR";
  values: PosthogPropertyGroup[] | PosthogPropertyFilter[];
}

export interface PosthogConditionGroup {
  properties: PosthogPropertyFilter[];
  rollout_percentage: number | null;
  variant: string | null;
}

export interface PosthogFlagDefinition {
  id: number;
  key: string;
  name: string;
  active: boolean;
  deleted: false;
  version: number;
  ensure_experience_continuity: boolean;
  filters: {
    groups: PosthogConditionGroup[];
    multivariate: { variants: { key: string; name: string | null; rollout_percentage: number }[] } | null;
    /** "true" (boolean flags) or a variant key -> the payload as JSON text; SDKs JSON.parse it. */
    payloads: Record<string, string>;
    aggregation_group_type_index: number | null;
  };
}

export interface PosthogDefinitionsDocument {
  flags: PosthogFlagDefinition[];
  /** group type index (as text) -> group type name */
  group_type_mapping: Record<string, string>;
  /** cohort id -> its definition, for the property cohorts flags name */
  cohorts: Record<string, PosthogPropertyGroup>;
}

const POSTHOG_OPERATOR: Readonly<Record<FlagOperator, string>> = {
  eq: "exact",
  neq: "is_not",
  in: "exact",
  not_in: "is_not",
  contains: "icontains",
  not_contains: "not_icontains",
  regex: "regex",
  not_regex: "not_regex",
  gt: "gt",
  gte: "gte",
  lt: "lt",
  lte: "lte",
  is_set: "is_set",
  is_not_set: "is_not_set",
};

/** The document for `flags`, whose group types are `groupTypes` (index -> name), with the property cohorts they name. */
export function posthogDefinitions(
  flags: readonly FlagDefinition[],
  groupTypes: readonly string[],
  propertyCohorts: PropertyCohorts = noPropertyCohorts,
): PosthogDefinitionsDocument {
  const groupTypeMapping: Record<string, string> = {};
  groupTypes.forEach((groupType, index) => {
    groupTypeMapping[String(index)] = groupType;
  });
  const cohorts: Record<string, PosthogPropertyGroup> = {};
  for (const condition of flags.flatMap((flag) => flag.rules.flatMap((rule) => rule.properties))) {
    if (condition.type !== "cohort") continue;
    const definition = propertyCohorts.get(condition.cohort_id);
    if (definition !== undefined) cohorts[condition.cohort_id] = posthogCohort(definition);
  }
  return { flags: flags.map(posthogFlag), group_type_mapping: groupTypeMapping, cohorts };
}

// posthog-node reads a group's values as groups when the first is one, else as filters, so a
// group holding both has each of its criteria wrapped in a group of one.
function posthogCohort(group: CohortGroup): PosthogPropertyGroup {
  const type = group.type === "and" ? "AND" : "OR";
  const filter = (criterion: CohortGroup["values"][number]) => {
    if (criterion.type !== "person") throw new Error("a property cohort holds person criteria only");
    return posthogProperty({ type: "person", key: criterion.key, operator: criterion.operator, ...(criterion.value === undefined ? {} : { value: criterion.value }) });
  };
  if (!group.values.some(isGroup)) return { type, values: group.values.map(filter) };
  return { type, values: group.values.map((member) => (isGroup(member) ? posthogCohort(member) : { type: "AND", values: [filter(member)] })) };
}

function posthogFlag(flag: FlagDefinition): PosthogFlagDefinition {
  const multivariate = flag.kind === "multivariate";
  return {
    id: flag.id,
    key: flag.key,
    name: flag.name,
    active: flag.enabled,
    deleted: false,
    version: flag.version,
    ensure_experience_continuity: remoteOnlyCauses(flag).length > 0,
    filters: {
      groups: flag.rules.map((rule) => ({
        properties: rule.properties.map(posthogProperty),
        rollout_percentage: rule.rollout_percentage,
        // Invalid overrides are ignored by every evaluator; publishing them would only make
        // SDKs that sort override rules first reorder rules for nothing.
        variant: hasValidVariantOverride(flag, rule) ? rule.variant : null,
      })),
      multivariate: multivariate
        ? {
            variants: flag.variants.map((variant) => ({
              key: variant.key,
              name: variant.name ?? null,
              rollout_percentage: variant.rollout_percentage,
            })),
          }
        : null,
      payloads: multivariate ? variantPayloads(flag) : booleanPayloads(flag),
      aggregation_group_type_index: flag.stickiness === "distinct_id" ? null : flag.stickiness.group_type_index,
    },
  };
}

function posthogProperty(condition: FlagRuleCondition): PosthogPropertyFilter {
  if (condition.type === "cohort") return { key: "id", value: condition.cohort_id, operator: condition.operator, type: "cohort" };
  const property: PosthogPropertyFilter = {
    key: condition.key,
    value: posthogValue(condition),
    operator: POSTHOG_OPERATOR[condition.operator],
    type: condition.type,
  };
  if (condition.group_type_index !== undefined) property.group_type_index = condition.group_type_index;
  return property;
}

// Values are published in the form every SDK reads the way our matcher does:
// - equality: numbers as their text, which is what equality compares (and posthog-node refuses
//   to compare integer filter values locally);
// - substring and regex operators: the text of the value;
// - orderings: numbers stay numbers, anything else becomes its text;
// - is_set / is_not_set: the operator name, as PostHog stores them.
function posthogValue(condition: FlagCondition): PosthogPropertyValue {
  const value = condition.value;
  switch (condition.operator) {
    case "is_set":
    case "is_not_set":
      return condition.operator;
    case "eq":
    case "neq":
    case "in":
    case "not_in":
      if (value === undefined || value === null) return null;
      return Array.isArray(value) ? value.map(numberAsText) : numberAsText(value);
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      if (value === undefined || value === null) return null;
      return typeof value === "number" ? value : String(value);
    default:
      return value === undefined || value === null ? null : String(value);
  }
}

function numberAsText(value: FlagConditionScalar): FlagConditionScalar {
  return typeof value === "number" ? String(value) : value;
}

function booleanPayloads(flag: FlagDefinition): Record<string, string> {
  const text = posthogPayloadText(flag.payload);
  return text === null ? {} : { true: text };
}

function variantPayloads(flag: FlagDefinition): Record<string, string> {
  const payloads: Record<string, string> = {};
  for (const variant of flag.variants) {
    const text = posthogPayloadText(variant.payload);
    if (text !== null) payloads[variant.key] = text;
  }
  return payloads;
}
