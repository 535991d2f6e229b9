// Whom flags are evaluated for: the distinct id, the subject's groups, and its person and group
// properties, read where they already are. A server overlays the properties a request sends on
// the ones it stores; reading through the layers on demand spares a merged copy of each
// property set per request, and properties no condition names are never looked at.
import type { EvaluationContext } from "./types.ts";

type Properties = Readonly<Record<string, unknown>>;

export interface FlagSubject {
  readonly distinctId: string;
  /** A person property (`distinct_id` unless one is set), undefined when absent. */
  personProperty(key: string): unknown;
  /** The key of the subject's group of that type, undefined when it has none. */
  groupKey(groupTypeIndex: number): string | undefined;
  /** A property of that group (`$group_key` unless one is set); asked only when the subject has the group. */
  groupProperty(groupTypeIndex: number, key: string): unknown;
  /** Whether the subject's person is in the cohort's stored membership (asked only for cohorts not matched on properties). */
  inCohort(cohortId: string): boolean;
}

/** Shared by subjects without properties in some layer; never written. */
export const NO_PROPERTIES: Properties = Object.freeze({});

// posthog-node adds `distinct_id` to the person properties and `$group_key` to each group's
// properties before evaluating locally (a property of the same name passed in wins), so we do too.
export const PERSON_DEFAULT_PROPERTY = "distinct_id";
export const GROUP_DEFAULT_PROPERTY = "$group_key";

/**
 * `key` from the first layer holding it as an own property (so "constructor" is absent unless
 * set), else `fallback` when `key` is `fallbackKey`: the lookup the merged object
 * `{[fallbackKey]: fallback, ...bottom, ...top}` would answer.
 */
export function layeredProperty(top: Properties, bottom: Properties, key: string, fallbackKey: string, fallback: string): unknown {
  if (Object.hasOwn(top, key)) return top[key];
  if (Object.hasOwn(bottom, key)) return bottom[key];
  return key === fallbackKey ? fallback : undefined;
}

/** The name of group type `groupTypeIndex` when `groups` (type -> key) has a group of it, else undefined. */
export function presentGroupType(groupTypes: readonly string[], groups: Readonly<Record<string, unknown>>, groupTypeIndex: number): string | undefined {
  const groupType = groupTypes[groupTypeIndex];
  return groupType !== undefined && Object.hasOwn(groups, groupType) ? groupType : undefined;
}

/** The subject an EvaluationContext describes. */
export function contextSubject(context: EvaluationContext): FlagSubject {
  const typeOf = (groupTypeIndex: number) => presentGroupType(context.group_types, context.groups, groupTypeIndex);
  return {
    distinctId: context.distinct_id,
    personProperty: (key) => layeredProperty(context.person_properties, NO_PROPERTIES, key, PERSON_DEFAULT_PROPERTY, context.distinct_id),
    groupKey(groupTypeIndex) {
      const groupType = typeOf(groupTypeIndex);
      return groupType === undefined ? undefined : String(context.groups[groupType]);
    },
    groupProperty(groupTypeIndex, key) {
      const groupType = typeOf(groupTypeIndex)!;
      const properties = Object.hasOwn(context.group_properties, groupType) ? context.group_properties[groupType]! : NO_PROPERTIES;
      return layeredProperty(properties, NO_PROPERTIES, key, GROUP_DEFAULT_PROPERTY, String(context.groups[groupType]));
    },
    inCohort: (cohortId) => context.cohorts?.includes(cohortId) ?? false,
  };
}
