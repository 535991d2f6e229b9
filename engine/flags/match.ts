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

import type { FlagCondition, FlagConditionScalar, FlagOperator } from "./types.ts";
import { asciiLowercase, equalityText, isTruthyLike, isTruthyOrFalsyLike } from "./property-values.ts";
import { SlotReader } from "./property-slots.ts";

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

/** Tests a compiled condition against the subject a reader is on. */
export type ConditionTest = (reader: SlotReader) => boolean;

const never: ConditionTest = () => false;

/**
 * The test of `condition` on the property in `slot`, with the condition's value worked out once:
 * definitions live as long as their snapshot, and the same conditions run for every request.
 */
export function compileCondition(condition: Omit<FlagCondition, "type" | "key">, slot: number): ConditionTest {
  const { operator, value: target } = condition;
  if (operator === "is_set") return (reader) => reader.value(slot) !== undefined;
  if (operator === "is_not_set") return (reader) => reader.value(slot) === undefined;
  if (target === undefined || target === null) return never;
  const whenAbsent = MATCHES_WHEN_PROPERTY_ABSENT[operator];
  const whenPresent = presentTest(operator, target, slot);
  return (reader) => (reader.value(slot) === undefined ? whenAbsent : whenPresent(reader));
}

const negated = (test: ConditionTest): ConditionTest => (reader) => !test(reader);

// The test for a present property (not undefined; null is present).
function presentTest(operator: Exclude<FlagOperator, "is_set" | "is_not_set">, target: FlagConditionScalar | FlagConditionScalar[], slot: number): ConditionTest {
  switch (operator) {
    case "eq":
    case "in":
      return equalityTest(target, slot);
    case "neq":
    case "not_in":
      return negated(equalityTest(target, slot));
    case "contains":
    case "not_contains": {
      const needle = asciiLowercase(String(target));
      const contains: ConditionTest = (reader) => reader.substringText(slot).includes(needle);
      return operator === "contains" ? contains : negated(contains);
    }
    case "regex":
    case "not_regex": {
      // An invalid pattern matches nothing, for regex and not_regex alike.
      const pattern = compiledPattern(String(target));
      if (pattern === null) return never;
      const matches: ConditionTest = (reader) => pattern.test(String(reader.value(slot)));
      return operator === "regex" ? matches : negated(matches);
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      // Only the text operators read null (as "null"); an ordering against null is false.
      const order = orderingOf(operator, target);
      return (reader) => {
        const actual = reader.value(slot);
        return actual !== null && order(actual);
      };
    }
  }
}

// PostHog's equality: by truthiness when the value is true/false-like, otherwise by lowercased
// text (each item of a list); an empty list never matches.
function equalityTest(target: FlagConditionScalar | FlagConditionScalar[], slot: number): ConditionTest {
  if (Array.isArray(target) && target.length === 0) return never;
  if (isTruthyOrFalsyLike(target)) {
    const truthy = isTruthyLike(target);
    return (reader) => isTruthyLike(reader.value(slot)) === truthy;
  }
  const texts = new Set((Array.isArray(target) ? target : [target]).map((item) => equalityText(item).toLowerCase()));
  if (texts.size === 1) {
    const [text] = texts;
    return (reader) => reader.equalityText(slot) === text;
  }
  return (reader) => texts.has(reader.equalityText(slot));
}

// Numbers when both sides read as finite numbers (parseFloat, so "12abc" reads as 12, as in the
// SDK), otherwise their texts in UTF-16 order.
function orderingOf(operator: "gt" | "gte" | "lt" | "lte", target: FlagConditionScalar | FlagConditionScalar[]): (actual: unknown) => boolean {
  const targetNumber = typeof target === "number" ? target : parseFloat(String(target));
  const targetText = String(target);
  const compare = comparisons[operator];
  return (actual) => {
    const actualNumber = typeof actual === "number" ? actual : parseFloat(String(actual));
    return Number.isFinite(targetNumber) && Number.isFinite(actualNumber) ? compare(actualNumber, targetNumber) : compare(String(actual), targetText);
  };
}

const comparisons: Record<"gt" | "gte" | "lt" | "lte", <T extends number | string>(left: T, right: T) => boolean> = {
  gt: (left, right) => left > right,
  gte: (left, right) => left >= right,
  lt: (left, right) => left < right,
  lte: (left, right) => left <= right,
};

/** Whether `condition` holds for a subject whose properties are `properties`. */
export function conditionMatches(condition: FlagCondition, properties: Readonly<Record<string, unknown>>): boolean {
  const reader = new SlotReader([{ groupTypeIndex: null, key: condition.key }]);
  reader.start({
    distinctId: "",
    // Own properties only: a property named "constructor" or "toString" is absent unless set.
    personProperty: (key) => (Object.hasOwn(properties, key) ? properties[key] : undefined),
    groupKey: () => undefined,
    groupProperty: () => undefined,
    inCohort: () => false,
  });
  return compileCondition(condition, 0)(reader);
}

// Compiled patterns are shared by every compiled set; flags change rarely, so a bounded map
// that is emptied when full keeps the hit rate high without tracking recency.
const REGEX_CACHE_MAX_ENTRIES = 1024;
const compiledPatterns = new Map<string, RegExp | null>();

/** JavaScript regex semantics without flags; null when the pattern does not compile. */
function compiledPattern(pattern: string): RegExp | null {
  let compiled = compiledPatterns.get(pattern);
  if (compiled === undefined) {
    compiled = compilePattern(pattern);
    if (compiledPatterns.size >= REGEX_CACHE_MAX_ENTRIES) compiledPatterns.clear();
    compiledPatterns.set(pattern, compiled);
  }
  return compiled;
}

function compilePattern(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern);
  } catch {
    return null;
  }
}
