// Property condition matching with PostHog's semantics.
//
// Where posthog-node's local evaluation decides a condition, we decide it identically (operator
// by operator, the code below follows @posthog/core's matchFeatureFlagProperty without a
// `property_matching_version`). Where the SDK cannot decide and falls back to the server, we
// answer as PostHog's flags service does:
// - a property that is absent: is_set and the positive operators (eq, in, contains, regex, gt,
//   gte, lt, lte) do not match; the negated ones (neq, not_in, not_contains, not_regex,
//   is_not_set) do. "Not equal to X" holds for someone who has no value at all.
// - a condition without a value (other than is_set / is_not_set) never matches.
// - numbers compare by their JavaScript text ("5", "1.5") in equality.
// - an empty list: `in []` never matches and `not_in []` always does (PostHog would compare by
//   truthiness there; such flags are published for server-side evaluation only).

import type { FlagCondition, FlagOperator } from "./types.ts";
import { asciiLowercase, equalityText, isTruthyLike, isTruthyOrFalsyLike } from "./property-values.ts";

/** What each operator answers when the property is absent from the subject's properties. */
export const MATCHES_WHEN_PROPERTY_ABSENT: Readonly<Record<FlagOperator, boolean>> = {
  eq: false,
  neq: true,
  in: false,
  not_in: true,
  contains: false,
  not_contains: true,
  regex: false,
  not_regex: true,
  gt: false,
  gte: false,
  lt: false,
  lte: false,
  is_set: false,
  is_not_set: true,
};

/** Whether `condition` holds for a subject whose properties are `properties`. */
export function conditionMatches(
  condition: FlagCondition,
  properties: Readonly<Record<string, unknown>>,
): boolean {
  const { operator, value: target } = condition;
  // Own properties only: a property named "constructor" or "toString" is absent unless set.
  const actual = Object.hasOwn(properties, condition.key) ? properties[condition.key] : undefined;
  const present = actual !== undefined;
  if (operator === "is_set") return present;
  if (operator === "is_not_set") return !present;
  if (target === undefined || target === null) return false;
  if (!present) return MATCHES_WHEN_PROPERTY_ABSENT[operator];

  switch (operator) {
    case "eq":
    case "in":
      return equals(targetOf(condition), actual);
    case "neq":
    case "not_in":
      return !equals(targetOf(condition), actual);
    case "contains":
      return asciiLowercase(String(actual)).includes(targetOf(condition).needle);
    case "not_contains":
      return !asciiLowercase(String(actual)).includes(targetOf(condition).needle);
    case "regex":
    case "not_regex": {
      const matched = regexMatches(String(target), String(actual));
      // An invalid pattern matches nothing, for regex and not_regex alike.
      if (matched === null) return false;
      return operator === "regex" ? matched : !matched;
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      // Only the text operators read null (as "null"); an ordering against null is false.
      return actual !== null && ordered(operator, actual, target);
  }
}

/**
 * The condition's value in the forms matching compares, worked out once per condition object:
 * definitions live as long as their snapshot, and the same conditions run for every request.
 */
interface ConditionTarget {
  /** An empty list: equality never matches. */
  empty: boolean;
  /** Compares by truthiness (PostHog's boolean handling), with this truthiness. */
  truthy: boolean | null;
  /** Lowercased equality texts of the value (each item of a list). */
  texts: ReadonlySet<string>;
  /** ASCII-lowercased text for the substring operators. */
  needle: string;
}

const targets = new WeakMap<FlagCondition, ConditionTarget>();

function targetOf(condition: FlagCondition): ConditionTarget {
  let target = targets.get(condition);
  if (target === undefined) {
    const value = condition.value;
    const items = Array.isArray(value) ? value : [value];
    target = {
      empty: Array.isArray(value) && value.length === 0,
      truthy: isTruthyOrFalsyLike(value) ? isTruthyLike(value) : null,
      texts: new Set(items.map((item) => equalityText(item).toLowerCase())),
      needle: asciiLowercase(String(value)),
    };
    targets.set(condition, target);
  }
  return target;
}

function equals(target: ConditionTarget, actual: unknown): boolean {
  if (target.empty) return false;
  if (target.truthy !== null) return target.truthy === isTruthyLike(actual);
  return target.texts.has(equalityText(actual).toLowerCase());
}

// Numbers when both sides read as finite numbers (parseFloat, so "12abc" reads as 12, as in the
// SDK), otherwise their texts in UTF-16 order.
function ordered(operator: "gt" | "gte" | "lt" | "lte", actual: unknown, target: unknown): boolean {
  const targetNumber = typeof target === "number" ? target : parseFloat(String(target));
  const actualNumber = typeof actual === "number" ? actual : parseFloat(String(actual));
  const bothNumeric = Number.isFinite(targetNumber) && Number.isFinite(actualNumber);
  const left = bothNumeric ? actualNumber : String(actual);
  const right = bothNumeric ? targetNumber : String(target);
  switch (operator) {
    case "gt":
      return left > right;
    case "gte":
      return left >= right;
    case "lt":
      return left < right;
    case "lte":
      return left <= right;
  }
}

// Compiled patterns are reused across requests; flags change rarely, so a bounded map that is
// emptied when full keeps the hit rate high without tracking recency.
const REGEX_CACHE_MAX_ENTRIES = 1024;
const compiledPatterns = new Map<string, RegExp | null>();

/** JavaScript regex semantics without flags; null when the pattern does not compile. */
function regexMatches(pattern: string, text: string): boolean | null {
  let compiled = compiledPatterns.get(pattern);
  if (compiled === undefined) {
    compiled = compilePattern(pattern);
    if (compiledPatterns.size >= REGEX_CACHE_MAX_ENTRIES) compiledPatterns.clear();
    compiledPatterns.set(pattern, compiled);
  }
  return compiled === null ? null : compiled.test(text);
}

function compilePattern(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern);
  } catch {
    return null;
  }
}
