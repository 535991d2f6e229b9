// The /flags/definitions document (PostHog's local-evaluation format) and the rule deciding
// which flags SDKs must leave to the server (ensure_experience_continuity).
import { expect, test } from "bun:test";
import { posthogDefinitions } from "../../../engine/flags/posthog-definitions.ts";
import { remoteOnlyCauses } from "../../../engine/flags/local-evaluation.ts";
import type { FlagCondition, FlagDefinition, FlagRule } from "../../../engine/flags/types.ts";

function flag(fields: Partial<FlagDefinition> & Pick<FlagDefinition, "key">): FlagDefinition {
  return {
    id: 7,
    name: `The ${fields.key} flag`,
    kind: "boolean",
    enabled: true,
    rules: [{ properties: [], rollout_percentage: null, variant: null }],
    variants: [],
    payload: null,
    salt: "",
    stickiness: "distinct_id",
    version: 4,
    ...fields,
  };
}

const person = (key: string, operator: FlagCondition["operator"], value?: FlagCondition["value"]): FlagCondition =>
  value === undefined ? { type: "person", key, operator } : { type: "person", key, operator, value };
const rule = (properties: FlagCondition[], rollout: number | null = null, variant: string | null = null): FlagRule => ({
  properties,
  rollout_percentage: rollout,
  variant,
});
const variants = [
  { key: "control", name: "Control", rollout_percentage: 50, payload: { color: "grey" } },
  { key: "test", rollout_percentage: 50, payload: "123" },
];

test("a boolean person flag: operators mapped, equality numbers as text, payload as JSON text under \"true\"", () => {
  const document = posthogDefinitions(
    [
      flag({
        key: "beta",
        payload: { theme: "dark" },
        rules: [
          rule([person("plan", "in", ["pro", 5]), person("age", "gte", 18), person("score", "lt", "0.5")], 25),
          rule([person("email", "contains", "@example.com"), person("email", "not_regex", "^bot"), person("beta", "is_set")]),
          rule([
            person("country", "neq", 44),
            person("country", "not_in", ["us"]),
            person("tag", "not_contains", 7),
            person("x", "is_not_set"),
          ]),
        ],
      }),
    ],
    ["company", "project"],
  );
  expect(document).toEqual({
    flags: [
      {
        id: 7,
        key: "beta",
        name: "The beta flag",
        active: true,
        deleted: false,
        version: 4,
        ensure_experience_continuity: false,
        filters: {
          groups: [
            {
              properties: [
                { key: "plan", value: ["pro", "5"], operator: "exact", type: "person" },
                { key: "age", value: 18, operator: "gte", type: "person" },
                { key: "score", value: "0.5", operator: "lt", type: "person" },
              ],
              rollout_percentage: 25,
              variant: null,
            },
            {
              properties: [
                { key: "email", value: "@example.com", operator: "icontains", type: "person" },
                { key: "email", value: "^bot", operator: "not_regex", type: "person" },
                { key: "beta", value: "is_set", operator: "is_set", type: "person" },
              ],
              rollout_percentage: null,
              variant: null,
            },
            {
              properties: [
                { key: "country", value: "44", operator: "is_not", type: "person" },
                { key: "country", value: ["us"], operator: "is_not", type: "person" },
                { key: "tag", value: "7", operator: "not_icontains", type: "person" },
                { key: "x", value: "is_not_set", operator: "is_not_set", type: "person" },
              ],
              rollout_percentage: null,
              variant: null,
            },
          ],
          multivariate: null,
          payloads: { true: '{"theme":"dark"}' },
          aggregation_group_type_index: null,
        },
      },
    ],
    group_type_mapping: { "0": "company", "1": "project" },
    cohorts: {},
  });
});

test("a multivariate group flag: variants, per-variant payloads as JSON text, only valid overrides, aggregation index", () => {
  const document = posthogDefinitions(
    [
      flag({
        key: "pricing",
        kind: "multivariate",
        enabled: false,
        variants,
        stickiness: { group_type_index: 1 },
        rules: [
          rule([{ type: "group", group_type_index: 1, key: "tier", operator: "eq", value: "gold" }], null, "test"),
          rule([], 40, "no-such-variant"),
        ],
      }),
    ],
    ["company", "project"],
  );
  expect(document.flags).toEqual([
    {
      id: 7,
      key: "pricing",
      name: "The pricing flag",
      active: false,
      deleted: false,
      version: 4,
      ensure_experience_continuity: false,
      filters: {
        groups: [
          {
            properties: [{ key: "tier", value: "gold", operator: "exact", type: "group", group_type_index: 1 }],
            rollout_percentage: null,
            variant: "test",
          },
          { properties: [], rollout_percentage: 40, variant: null },
        ],
        multivariate: {
          variants: [
            { key: "control", name: "Control", rollout_percentage: 50 },
            { key: "test", name: null, rollout_percentage: 50 },
          ],
        },
        payloads: { control: '{"color":"grey"}', test: '"123"' },
        aggregation_group_type_index: 1,
      },
    },
  ]);
});

test("flags SDKs could answer differently are left to the server, each for its cause", () => {
  const multivariate = (rules: FlagRule[]) => flag({ key: "mv", kind: "multivariate", variants, rules });
  // A rule forcing "test" first, then one giving the hashed variant.
  const forcedThenHashed = (condition: FlagCondition) => multivariate([rule([condition], null, "test"), rule([])]);
  const causes = {
    clean: remoteOnlyCauses(
      flag({ key: "clean", rules: [rule([person("plan", "neq", "free")]), rule([person("plan", "eq", 5)])] }),
    ),
    salt: remoteOnlyCauses(flag({ key: "s", salt: "pepper" })),
    groupConditionOnPersonFlag: remoteOnlyCauses(
      flag({ key: "g", rules: [rule([{ type: "group", group_type_index: 0, key: "plan", operator: "eq", value: "x" }])] }),
    ),
    personConditionOnGroupFlag: remoteOnlyCauses(
      flag({ key: "g", stickiness: { group_type_index: 0 }, rules: [rule([person("plan", "eq", "x")])] }),
    ),
    otherGroupType: remoteOnlyCauses(
      flag({
        key: "g",
        stickiness: { group_type_index: 0 },
        rules: [rule([{ type: "group", group_type_index: 1, key: "plan", operator: "eq", value: "x" }])],
      }),
    ),
    emptyList: remoteOnlyCauses(flag({ key: "e", rules: [rule([person("plan", "not_in", [])])] })),
    missingValue: remoteOnlyCauses(flag({ key: "m", rules: [rule([person("plan", "contains")])] })),
    negatedRuleBeforeOtherVariant: remoteOnlyCauses(forcedThenHashed(person("plan", "neq", "free"))),
    integerEqualityBeforeOtherVariant: remoteOnlyCauses(forcedThenHashed(person("seats", "in", ["a", 5]))),
    listEqualityBeforeOtherVariant: remoteOnlyCauses(forcedThenHashed(person("tags", "eq", '["a",1]'))),
    textEqualityBeforeOtherVariant: remoteOnlyCauses(forcedThenHashed(person("email", "eq", "me@x.io"))),
    truthinessBeforeOtherVariant: remoteOnlyCauses(forcedThenHashed(person("beta", "eq", "false"))),
    orderingBeforeOtherVariant: remoteOnlyCauses(forcedThenHashed(person("age", "gt", 5))),
    negatedRuleBeforeSameVariant: remoteOnlyCauses(
      multivariate([rule([person("plan", "neq", "free")], null, "test"), rule([person("x", "is_set")], null, "test")]),
    ),
    negatedLastRule: remoteOnlyCauses(
      multivariate([rule([person("plan", "eq", "pro")], null, "test"), rule([person("plan", "is_not_set")])]),
    ),
    overrideAfterPlainRule: remoteOnlyCauses(
      multivariate([rule([person("plan", "eq", "pro")]), rule([person("plan", "eq", "team")], null, "test")]),
    ),
    invalidOverrideAfterPlainRule: remoteOnlyCauses(multivariate([rule([]), rule([], null, "nope")])),
    booleanFlagWithOverrides: remoteOnlyCauses(
      flag({ key: "b", rules: [rule([person("p", "is_not_set")], null, "x"), rule([])] }),
    ),
  };
  expect(causes).toEqual({
    clean: [],
    salt: ["salt"],
    groupConditionOnPersonFlag: ["mixed_targeting"],
    personConditionOnGroupFlag: ["mixed_targeting"],
    otherGroupType: ["mixed_targeting"],
    emptyList: ["empty_list"],
    missingValue: ["missing_value"],
    negatedRuleBeforeOtherVariant: ["undecidable_rule_before_other_variant"],
    integerEqualityBeforeOtherVariant: ["undecidable_rule_before_other_variant"],
    listEqualityBeforeOtherVariant: ["undecidable_rule_before_other_variant"],
    textEqualityBeforeOtherVariant: [],
    truthinessBeforeOtherVariant: [],
    orderingBeforeOtherVariant: [],
    negatedRuleBeforeSameVariant: [],
    negatedLastRule: [],
    overrideAfterPlainRule: ["override_after_plain_rule"],
    invalidOverrideAfterPlainRule: [],
    booleanFlagWithOverrides: [],
  });
  const published = posthogDefinitions([flag({ key: "s", salt: "pepper" })], []);
  expect([published.flags[0]!.ensure_experience_continuity, published.group_type_mapping]).toEqual([true, {}]);
});
