// Flag conditions on cohorts: a property cohort matched on the subject's person properties (and
// / or nesting, not_in), any other cohort on its stored membership; what the local-evaluation
// document publishes of them; and which flags must be evaluated by the server.
import { describe, expect, test } from "bun:test";
import { evaluateFlags } from "../../../engine/flags/evaluate.ts";
import { remoteOnlyCauses } from "../../../engine/flags/local-evaluation.ts";
import { posthogDefinitions } from "../../../engine/flags/posthog-definitions.ts";
import { parseCohortDefinition } from "../../../engine/cohorts/definition.ts";
import { isPropertyCohort } from "../../../engine/flags/cohort-conditions.ts";
import type { EvaluationContext, FlagDefinition, FlagRuleCondition } from "../../../engine/flags/types.ts";

const proOrAdult = "0193a7c2-0000-7000-8000-00000000f001";
const buyers = "0193a7c2-0000-7000-8000-00000000f002";
const propertyCohorts = new Map([[proOrAdult, parseCohortDefinition({
  type: "or",
  values: [
    { type: "person", key: "plan", operator: "eq", value: "pro" },
    { type: "and", values: [{ type: "person", key: "age", operator: "gte", value: 18 }, { type: "person", key: "country", operator: "in", value: ["fr", 5] }] },
  ],
})]]);

const cohort = (cohort_id: string, operator: "in" | "not_in" = "in"): FlagRuleCondition => ({ type: "cohort", cohort_id, operator });
function flag(key: string, properties: FlagRuleCondition[], fields: Partial<FlagDefinition> = {}): FlagDefinition {
  return {
    id: 1, key, name: key, kind: "boolean", enabled: true, rules: [{ properties, rollout_percentage: null, variant: null }], variants: [], payload: null, salt: "",
    stickiness: "distinct_id", version: 1, ...fields,
  };
}
const context = (person_properties: Record<string, unknown>, cohorts: string[] = []): EvaluationContext =>
  ({ distinct_id: "user-1", person_properties, groups: {}, group_properties: {}, group_types: [], cohorts });
const enabled = (flags: FlagDefinition[], subject: EvaluationContext) => evaluateFlags(flags, subject, undefined, propertyCohorts).map((result) => result.enabled);

describe("evaluation", () => {
  const flags = [flag("in-property", [cohort(proOrAdult)]), flag("not-in-property", [cohort(proOrAdult, "not_in")]), flag("in-stored", [cohort(buyers)]), flag("not-in-stored", [cohort(buyers, "not_in")])];

  test("a property cohort is matched on the person's properties, with the rules of a rule's conditions", () => {
    expect(enabled(flags, context({ plan: "PRO" }))).toEqual([true, false, false, true]);
    expect(enabled(flags, context({ age: "21", country: "FR" }))).toEqual([true, false, false, true]);
    expect(enabled(flags, context({ age: 21, country: "5" }))).toEqual([true, false, false, true]);
    expect(enabled(flags, context({ age: 17, country: "fr" }))).toEqual([false, true, false, true]);
    expect(enabled(flags, context({}))).toEqual([false, true, false, true]);
  });

  test("any other cohort by the stored membership of the subject's person", () => {
    expect(enabled(flags, context({ plan: "pro" }, [buyers]))).toEqual([true, false, true, false]);
    // Its id in the membership counts even when a property cohort of that id is not known.
    expect(evaluateFlags([flag("in-property", [cohort(proOrAdult)])], context({}, [proOrAdult])).map((result) => result.enabled)).toEqual([true]);
  });

  test("only person criteria make a property cohort", () => {
    expect(isPropertyCohort(propertyCohorts.get(proOrAdult)!)).toBe(true);
    expect(isPropertyCohort(parseCohortDefinition({ type: "and", values: [{ type: "person", key: "plan", operator: "is_set" }, { type: "performed", event: "buy", count_operator: "gte", count: 1, days: 7 }] }))).toBe(false);
    expect(isPropertyCohort(parseCohortDefinition({ type: "and", values: [{ type: "cohort", cohort_id: buyers, operator: "in" }] }))).toBe(false);
  });
});

describe("the local-evaluation document", () => {
  test("cohort conditions as PostHog's cohort filters; the property cohorts named, in PostHog's groups", () => {
    const document = posthogDefinitions([flag("both", [cohort(proOrAdult), cohort(buyers, "not_in")])], [], propertyCohorts);
    expect(document.flags[0]!.filters.groups[0]!.properties).toEqual([
      { key: "id", value: proOrAdult, operator: "in", type: "cohort" },
      { key: "id", value: buyers, operator: "not_in", type: "cohort" },
    ]);
    // A group holding a criterion and a group: each criterion in a group of one.
    expect(document.cohorts).toEqual({
      [proOrAdult]: {
        type: "OR",
        values: [
          { type: "AND", values: [{ key: "plan", value: "pro", operator: "exact", type: "person" }] },
          { type: "AND", values: [{ key: "age", value: 18, operator: "gte", type: "person" }, { key: "country", value: ["fr", "5"], operator: "exact", type: "person" }] },
        ],
      },
    });
    expect(posthogDefinitions([flag("plain", [])], [], propertyCohorts).cohorts).toEqual({});
  });
});

describe("server-only flags", () => {
  test("a cohort condition reads the person: on a group-sticky flag it is mixed targeting; before another variant it may be undecidable", () => {
    const variants = [{ key: "a", rollout_percentage: 50 }, { key: "b", rollout_percentage: 50 }];
    expect(remoteOnlyCauses(flag("person-sticky", [cohort(buyers)]))).toEqual([]);
    expect(remoteOnlyCauses(flag("group-sticky", [cohort(buyers)], { stickiness: { group_type_index: 0 } }))).toEqual(["mixed_targeting"]);
    expect(remoteOnlyCauses(flag("variants", [], {
      kind: "multivariate", variants,
      rules: [{ properties: [cohort(proOrAdult)], rollout_percentage: null, variant: "a" }, { properties: [], rollout_percentage: null, variant: null }],
    }))).toEqual(["undecidable_rule_before_other_variant"]);
  });
});
