// Cohort definitions: what parses (every criterion, limits at their edges), what does not and
// the JSON path each refusal names, the published schema, and the cohorts a definition names.
import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import {
  CohortDefinitionSchema, cohortCountMax, cohortCriteriaMax, cohortDaysMax, cohortDaysMin, cohortNestingDepthMax, InvalidCohortDefinitionError,
  parseCohortDefinition, referencedCohorts,
} from "../../../engine/cohorts/definition.ts";

const otherCohort = "0193a7c2-1111-7000-8000-00000000000A";
const everyCriterion = {
  type: "or",
  values: [
    { type: "person", key: "plan", operator: "in", value: ["pro", 2] },
    { type: "person", key: "email", operator: "is_set" },
    {
      type: "and",
      values: [
        { type: "performed", event: "purchase", count_operator: "gte", count: 3, days: 30 },
        { type: "not_performed", event: "churned", days: cohortDaysMin },
        { type: "first_performed", event: "signed_up", days: cohortDaysMax },
        { type: "group", group_type_index: 4, group_key: "acme" },
        { type: "cohort", cohort_id: otherCohort, operator: "not_in" },
      ],
    },
  ],
};

const problemOf = (value: unknown): string => {
  try {
    parseCohortDefinition(value);
  } catch (error) {
    if (error instanceof InvalidCohortDefinitionError) return error.message;
    throw error;
  }
  throw new Error(`${JSON.stringify(value)} parsed`);
};

const and = (...values: unknown[]) => ({ type: "and", values });
const performed = (extra: Record<string, unknown> = {}) => ({ type: "performed", event: "e", count_operator: "eq", count: 1, days: 7, ...extra });
/** Groups nested `levels` deep (the outermost is level 1) around one criterion. */
const nested = (levels: number): unknown => (levels === 1 ? and(performed()) : and(nested(levels - 1)));

describe("parseCohortDefinition", () => {
  test("every criterion parses; cohort ids come back in lower case and referencedCohorts names them once", () => {
    const parsed = parseCohortDefinition(everyCriterion);
    const expected = structuredClone(everyCriterion);
    (expected.values[2] as { values: { cohort_id?: string }[] }).values[4]!.cohort_id = otherCohort.toLowerCase();
    expect(parsed).toEqual(expected as never);
    expect(referencedCohorts(parseCohortDefinition(and(everyCriterion, { type: "cohort", cohort_id: otherCohort.toLowerCase(), operator: "in" })))).toEqual([otherCohort.toLowerCase()]);
    expect(referencedCohorts(parseCohortDefinition(and(performed())))).toEqual([]);
  });

  test("limits at their edges: criteria, nesting, days and counts", () => {
    const many = (count: number) => and(...Array.from({ length: count }, () => performed()));
    expect(parseCohortDefinition(many(cohortCriteriaMax)).values).toHaveLength(cohortCriteriaMax);
    expect(problemOf(many(cohortCriteriaMax + 1))).toBe(`/: holds more than ${cohortCriteriaMax} criteria`);
    // Spread over groups, criteria count the same.
    expect(problemOf(and(many(60), many(41)))).toBe(`/: holds more than ${cohortCriteriaMax} criteria`);
    expect(parseCohortDefinition(nested(cohortNestingDepthMax))).toBeTruthy();
    expect(problemOf(nested(cohortNestingDepthMax + 1))).toBe(`/values/0/values/0/values/0/values/0/values/0: nests groups more than ${cohortNestingDepthMax} levels deep`);
    expect(parseCohortDefinition(and(performed({ days: cohortDaysMin, count: 0 }), performed({ days: cohortDaysMax, count: cohortCountMax })))).toBeTruthy();
    expect(problemOf(and(performed({ days: cohortDaysMin - 1 })))).toBe(`/values/0/days: expected integer to be greater or equal to ${cohortDaysMin}`);
    expect(problemOf(and(performed({ days: cohortDaysMax + 1 })))).toBe(`/values/0/days: expected integer to be less or equal to ${cohortDaysMax}`);
    expect(problemOf(and(performed({ count: -1 })))).toBe("/values/0/count: expected integer to be greater or equal to 0");
    expect(problemOf(and(performed({ count: cohortCountMax + 1 })))).toBe(`/values/0/count: expected integer to be less or equal to ${cohortCountMax}`);
  });

  test("refusals name the member at fault", () => {
    const cases: [unknown, string][] = [
      [null, "/: must be a group object ({type: and | or, values: [...]})"],
      [[performed()], "/: must be a group object ({type: and | or, values: [...]})"],
      [performed(), "/type: must be one of and, or (a definition is a group of criteria)"],
      [{ type: "and" }, "/values: is required"],
      [and(), "/values: expected array length to be greater or equal to 1"],
      [{ ...and(performed()), name: "x" }, "/name: is not a member of this object"],
      [and("purchase"), "/values/0: must be a group or a criterion object"],
      [and({ type: "visited" }), "/values/0/type: must be one of and, or, person, performed, not_performed, first_performed, group, cohort"],
      [and(and(performed({ count_operator: "gt" }))), "/values/0/values/0/count_operator: must be one of gte, lte, eq"],
      [and(performed({ count: 1.5 })), "/values/0/count: expected integer"],
      [and(performed({ event: "" })), "/values/0/event: expected string length greater or equal to 1"],
      [and({ type: "not_performed", event: "e" }), "/values/0/days: is required"],
      [and({ type: "first_performed", event: "e", days: 3, count: 1 }), "/values/0/count: is not a member of this object"],
      [and({ type: "person", key: "plan", operator: "like", value: "x" }), "/values/0/operator: must be one of eq, neq, in, not_in, contains, not_contains, regex, not_regex, gt, gte, lt, lte, is_set, is_not_set"],
      [and({ type: "person", key: "plan", operator: "in", value: "pro" }), "/values/0/value: must be an array for in"],
      [and({ type: "person", key: "plan", operator: "eq", value: ["pro"] }), "/values/0/value: must be a single value for eq (use in or not_in for a list)"],
      [and({ type: "person", key: "age", operator: "gt", value: "30" }), "/values/0/value: must be a number for gt"],
      [and({ type: "person", key: "plan", operator: "regex", value: "(" }), "/values/0/value: is not a valid regular expression: Invalid regular expression: missing )"],
      [and({ type: "person", key: "plan", operator: "eq" }), "/values/0/value: is required for eq"],
      [and({ type: "person", key: "plan", operator: "is_set", value: 1 }), "/values/0/value: must be absent for is_set"],
      [and({ type: "person", key: "a\u0000b", operator: "is_set" }), "/values/0/key: must not contain NUL (U+0000)"],
      [and({ type: "group", group_type_index: 5, group_key: "acme" }), "/values/0/group_type_index: expected integer to be less or equal to 4"],
      [and({ type: "group", group_type_index: 0, group_key: "" }), "/values/0/group_key: expected string length greater or equal to 1"],
      [and({ type: "cohort", cohort_id: "42", operator: "in" }), `/values/0/cohort_id: expected string to match '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`],
      [and({ type: "cohort", cohort_id: otherCohort, operator: "eq" }), "/values/0/operator: must be one of in, not_in"],
    ];
    expect(cases.map(([value]) => problemOf(value))).toEqual(cases.map(([, message]) => message));
  });
});

describe("CohortDefinitionSchema", () => {
  const check = TypeCompiler.Compile(CohortDefinitionSchema);

  test("accepts what parses and spells the nesting limit out", () => {
    expect(check.Check(everyCriterion)).toBe(true);
    expect(check.Check(nested(cohortNestingDepthMax))).toBe(true);
    expect(check.Check(nested(cohortNestingDepthMax + 1))).toBe(false);
    expect(check.Check(and())).toBe(false);
  });

  test("is plain JSON Schema with a title, its criteria one titled schema", () => {
    const json = JSON.parse(JSON.stringify(CohortDefinitionSchema));
    expect(json.title).toBe("CohortDefinition");
    expect(json.properties.values.items.anyOf[1].title).toBe("CohortCriterion");
    expect(json.properties.values.items.anyOf[1].anyOf.map((branch: { properties: { type: { const: string } } }) => branch.properties.type.const))
      .toEqual(["person", "performed", "not_performed", "first_performed", "group", "cohort"]);
  });
});
