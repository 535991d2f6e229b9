// Condition matching, operator by operator, with hand-worked expectations: PostHog's case and
// type handling where posthog-node decides locally, PostHog's service where it cannot (absent
// properties, conditions without a value).
import { expect, test } from "bun:test";
import { conditionMatches } from "../../../engine/flags/match.ts";
import type { FlagCondition, FlagOperator } from "../../../engine/flags/types.ts";

const ABSENT = Symbol("absent");
type Case = [value: FlagCondition["value"], actual: unknown, expected: boolean];

function check(operator: FlagOperator, cases: Case[]): void {
  const outcomes = cases.map(([value, actual]) => {
    const condition: FlagCondition = { type: "person", key: "p", operator, value };
    return conditionMatches(condition, actual === ABSENT ? {} : { p: actual });
  });
  expect(outcomes).toEqual(cases.map(([, , expected]) => expected));
}

test("eq: lowercased text, numbers by their text, JSON text for lists and objects", () => {
  check("eq", [
    ["Pro", "pro", true],
    ["pro", "Pro ", false],
    [5, "5", true],
    [5, 5, true],
    ["5", 5, true],
    [1.5, "1.5", true],
    ["ÉCOLE", "école", true],
    ["null", null, true],
    ['{"a":"x","b":1.5}', { b: 1.5, a: "x" }, true],
    ['["x",2]', ["x", 2], true],
    ["pro", ABSENT, false],
  ]);
});

test("eq: PostHog's boolean handling compares truthiness when the value is true/false-like", () => {
  check("eq", [
    [true, "TRUE", true],
    [true, true, true],
    ["true", "yes", false],
    ["true", 1, false],
    ["false", false, true],
    // Everything that is not true-like counts as false, as in PostHog.
    ["false", "no", true],
    [false, null, true],
    [false, "true", false],
  ]);
});

test("in / eq with a list: any item, same text rules; an empty list never matches", () => {
  check("in", [
    [["a", "B"], "b", true],
    [["a", "B"], "c", false],
    [[1, 2.5], "2.5", true],
    ["x", "X", true],
    [[], "anything", false],
    [["a"], ABSENT, false],
  ]);
  check("eq", [[["a", "b"], "A", true]]);
});

test("neq / not_in: the negation of equality; an absent property matches; an empty list always matches", () => {
  check("neq", [
    ["pro", "Pro", false],
    ["pro", "free", true],
    ["x", null, true],
    ["pro", ABSENT, true],
  ]);
  check("not_in", [
    [["a", "b"], "c", true],
    [["a", "b"], "A", false],
    [[], "a", true],
    [["a"], ABSENT, true],
  ]);
});

test("contains / not_contains: substring of the texts with ASCII letters folded", () => {
  check("contains", [
    ["Gmail", "USER@GMAIL.COM", true],
    ["É", "école", false],
    ["234", 12345, true],
    ["nul", null, true],
    ["a,b", ["a", "b"], true],
    ["x", ABSENT, false],
  ]);
  check("not_contains", [
    ["B", "abc", false],
    ["z", "abc", true],
    ["x", ABSENT, true],
  ]);
});

test("regex / not_regex: JavaScript patterns, case-sensitive; an invalid pattern matches neither way", () => {
  check("regex", [
    ["^user-\\d+$", "user-12", true],
    ["^user-\\d+$", "User-12", false],
    ["^12", 123, true],
    ["", "anything", true],
    ["(", "(", false],
    ["x", ABSENT, false],
  ]);
  check("not_regex", [
    ["^a", "bcd", true],
    ["^a", "abc", false],
    ["(", "(", false],
    ["x", ABSENT, true],
  ]);
});

test("gt / gte / lt / lte: numbers when both sides read as numbers, otherwise text order", () => {
  check("gt", [
    [9, "10", true],
    ["9", 10, true],
    [11, "12abc", true],
    ["abc", "abd", true],
    ["a", true, true],
    [5, null, false],
    [5, ABSENT, false],
  ]);
  check("gte", [
    ["5", 5, true],
    [5, 4.99, false],
  ]);
  check("lt", [
    [10, "9", true],
    ["abd", "abc", true],
    [0, -0.5, true],
  ]);
  check("lte", [
    [5, "5", true],
    [5, "5.01", false],
  ]);
});

test("is_set / is_not_set: presence only; null is present", () => {
  check("is_set", [
    ["is_set", null, true],
    ["is_set", "", true],
    ["is_set", ABSENT, false],
  ]);
  check("is_not_set", [
    ["is_not_set", null, false],
    ["is_not_set", ABSENT, true],
  ]);
});

test("a condition without a value never matches, present or absent", () => {
  check("eq", [[undefined, "x", false]]);
  check("neq", [
    [undefined, "x", false],
    [undefined, ABSENT, false],
  ]);
});

test("only own properties count: 'constructor' is absent from {}", () => {
  const properties: Record<string, unknown> = {};
  expect([
    conditionMatches({ type: "person", key: "constructor", operator: "is_set" }, properties),
    conditionMatches({ type: "person", key: "toString", operator: "neq", value: "x" }, properties),
  ]).toEqual([false, true]);
});
