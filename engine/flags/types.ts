// The flag model the control plane publishes to a region, the context an SDK request supplies,
// and the evaluator's answer. Field names are snake_case because these travel as JSON.

export type FlagOperator =
  | "eq"
  | "neq"
  | "in"
  | "not_in"
  | "contains"
  | "not_contains"
  | "regex"
  | "not_regex"
  | "gt"
  | "gte"
  | "lt"
  | "lte"
  | "is_set"
  | "is_not_set";

export type FlagConditionScalar = string | number | boolean;

export interface FlagCondition {
  type: "person" | "group";
  key: string;
  operator: FlagOperator;
  value?: FlagConditionScalar | FlagConditionScalar[];
  /** Required when `type` is "group": index into the environment's group types. */
  group_type_index?: number;
}

/**
 * The subject's person is (in) or is not (not_in) a member of a cohort (docs/cohorts.md): a
 * cohort whose definition reads person properties only is matched on the subject's person
 * properties, as PostHog matches it; any other by its membership stored in the environment.
 */
export interface FlagCohortCondition {
  type: "cohort";
  cohort_id: string;
  operator: "in" | "not_in";
}

/** A condition of a rule: on a person or group property, or on cohort membership. */
export type FlagRuleCondition = FlagCondition | FlagCohortCondition;

export interface FlagRule {
  properties: FlagRuleCondition[];
  /** null means 100. */
  rollout_percentage: number | null;
  /** Forces this variant when the rule matches (ignored unless it names one of the flag's variants). */
  variant: string | null;
}

export interface FlagVariant {
  key: string;
  name?: string | null;
  /** The variants of a flag sum to 100. */
  rollout_percentage: number;
  payload?: unknown;
}

export type FlagStickiness = "distinct_id" | { group_type_index: number };

export interface FlagDefinition {
  /** Numeric id, stable per flag; published as PostHog's `id`. */
  id: number;
  key: string;
  name: string;
  kind: "boolean" | "multivariate";
  enabled: boolean;
  /** OR of rules; a rule matches when all its conditions match and the id is inside its rollout. */
  rules: FlagRule[];
  /** Multivariate flags only. */
  variants: FlagVariant[];
  /** Boolean flags: the payload when enabled. Multivariate payloads live on the variants. */
  payload: unknown | null;
  /** "" hashes exactly like PostHog; any other value reshuffles every bucket of the flag. */
  salt: string;
  /** What is hashed: the distinct id, or the key of the subject's group of that type. */
  stickiness: FlagStickiness;
  version: number;
}

export interface EvaluationContext {
  distinct_id: string;
  person_properties: Record<string, unknown>;
  /** group type name -> group key */
  groups: Record<string, string>;
  /** group type name -> that group's properties */
  group_properties: Record<string, Record<string, unknown>>;
  /** index -> group type name */
  group_types: string[];
  /** Cohorts whose stored membership holds the subject's person (none when absent). */
  cohorts?: readonly string[];
}

export interface FlagReason {
  code: string;
  condition_index: number | null;
  description: string;
}

export interface FlagResult {
  key: string;
  enabled: boolean;
  variant: string | null;
  payload: unknown | null;
  reason: FlagReason;
}
