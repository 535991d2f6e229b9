// Flag evaluation with hand-worked buckets (sha1 by Python's hashlib, first 15 hex digits /
// 0xfffffffffffffff):
//   simple-flag.distinct_id_0              0.7836963764220432
//   simple-flag.distinct_id_0pepper        0.10140491569158962
//   simple-flag.distinct_id_1pepper        0.2791108387870404   (unsalted 0.3397069926995401)
//   multivariate-flag.distinct_id_0        0.502037796130735
//   multivariate-flag.distinct_id_0variant 0.6186454537930379
//   multivariate-flag.distinct_id_1variant 0.6473165157302697
//   team-flag.acme                         0.3884656046542607
//   team-flag.acmevariant                  0.7129506429202147
import { expect, test } from "bun:test";
import { evaluateFlag, evaluateFlags } from "../../../engine/flags/evaluate.ts";
import type { EvaluationContext, FlagDefinition, FlagResult, FlagRule } from "../../../engine/flags/types.ts";

function flag(fields: Partial<FlagDefinition> & Pick<FlagDefinition, "key">): FlagDefinition {
  return {
    id: 1,
    name: fields.key,
    kind: "boolean",
    enabled: true,
    rules: [{ properties: [], rollout_percentage: null, variant: null }],
    variants: [],
    payload: null,
    salt: "",
    stickiness: "distinct_id",
    version: 1,
    ...fields,
  };
}

function context(fields: Partial<EvaluationContext> & Pick<EvaluationContext, "distinct_id">): EvaluationContext {
  return { person_properties: {}, groups: {}, group_properties: {}, group_types: ["company"], ...fields };
}

const everyone = (rollout: number | null, variant: string | null = null): FlagRule => ({
  properties: [],
  rollout_percentage: rollout,
  variant,
});

const planIs = (plan: string, variant: string | null = null): FlagRule => ({
  properties: [{ type: "person", key: "plan", operator: "eq", value: plan }],
  rollout_percentage: null,
  variant,
});

function on(key: string, index: number, variant: string | null = null, payload: unknown = null): FlagResult {
  return {
    key,
    enabled: true,
    variant,
    payload,
    reason: { code: "condition_match", condition_index: index, description: `Matched condition set ${index + 1}` },
  };
}

function off(key: string, code: string, index: number | null, description: string): FlagResult {
  return { key, enabled: false, variant: null, payload: null, reason: { code, condition_index: index, description } };
}

const id0 = context({ distinct_id: "distinct_id_0" });

test("a disabled flag is off with flag_disabled", () => {
  expect(evaluateFlag(flag({ key: "simple-flag", enabled: false, payload: { a: 1 } }), id0)).toEqual(
    off("simple-flag", "flag_disabled", null, "Feature flag is disabled"),
  );
});

test("rollout edges: 0 excludes, 100 and null include, the bucket 0.78369... sits between 78 and 78.37", () => {
  const outcome = (rollout: number | null) => evaluateFlag(flag({ key: "simple-flag", rules: [everyone(rollout)] }), id0);
  expect([0, 78, 78.37, 100, null].map(outcome)).toEqual([
    off("simple-flag", "out_of_rollout_bound", 0, "Out of rollout bound"),
    off("simple-flag", "out_of_rollout_bound", 0, "Out of rollout bound"),
    on("simple-flag", 0),
    on("simple-flag", 0),
    on("simple-flag", 0),
  ]);
});

test("a salt reshuffles buckets: distinct_id_0 moves from 0.78 to 0.10, so a 45% rollout now includes it", () => {
  const salted = flag({ key: "simple-flag", salt: "pepper", rules: [everyone(45)] });
  const unsalted = flag({ key: "simple-flag", rules: [everyone(45)] });
  expect([evaluateFlag(salted, id0).enabled, evaluateFlag(unsalted, id0).enabled]).toEqual([true, false]);
  const saltedAt27_9 = flag({ key: "simple-flag", salt: "pepper", rules: [everyone(27.9)] });
  expect(evaluateFlag(saltedAt27_9, context({ distinct_id: "distinct_id_1" })).enabled).toBe(false);
});

test("rules are tried in order and the first matching one wins; the boolean payload comes with it", () => {
  const gated = flag({
    key: "gated",
    payload: { theme: "dark" },
    rules: [
      planIs("pro"),
      { properties: [{ type: "person", key: "country", operator: "eq", value: "fr" }], rollout_percentage: null, variant: null },
      everyone(null),
    ],
  });
  const as = (person_properties: Record<string, unknown>) =>
    evaluateFlag(gated, context({ distinct_id: "u", person_properties }));
  expect([as({ plan: "pro", country: "fr" }), as({ plan: "free", country: "fr" }), as({ plan: "free" })]).toEqual([
    on("gated", 0, null, { theme: "dark" }),
    on("gated", 1, null, { theme: "dark" }),
    on("gated", 2, null, { theme: "dark" }),
  ]);
});

test("no match: out_of_rollout_bound outranks no_condition_match; ties report the last rule; no rules reports none", () => {
  const free = context({ distinct_id: "distinct_id_0", person_properties: { plan: "free" } });
  const outcome = (rules: FlagRule[]) => evaluateFlag(flag({ key: "simple-flag", rules }), free);
  expect([
    outcome([everyone(0), planIs("pro")]),
    outcome([planIs("pro"), everyone(0)]),
    outcome([planIs("pro"), planIs("team")]),
    outcome([everyone(10), everyone(20)]),
    outcome([]),
  ]).toEqual([
    off("simple-flag", "out_of_rollout_bound", 0, "Out of rollout bound"),
    off("simple-flag", "out_of_rollout_bound", 1, "Out of rollout bound"),
    off("simple-flag", "no_condition_match", 1, "No matching condition set"),
    off("simple-flag", "out_of_rollout_bound", 1, "Out of rollout bound"),
    off("simple-flag", "no_condition_match", null, "No matching condition set"),
  ]);
});

const abc = (payloads: Partial<Record<"a" | "b" | "c", unknown>> = {}) => [
  { key: "a", rollout_percentage: 61, payload: payloads.a },
  { key: "b", rollout_percentage: 1, payload: payloads.b },
  { key: "c", rollout_percentage: 38, payload: payloads.c },
];

test("variants by cumulative ranges of the variant bucket: 0.6186 falls in b = [0.61, 0.62), 0.6473 in c", () => {
  const multivariate = flag({ key: "multivariate-flag", kind: "multivariate", variants: abc({ b: "B!", c: [1, 2] }) });
  expect([
    evaluateFlag(multivariate, id0),
    evaluateFlag(multivariate, context({ distinct_id: "distinct_id_1" })),
  ]).toEqual([on("multivariate-flag", 0, "b", "B!"), on("multivariate-flag", 0, "c", [1, 2])]);
});

test("shares summing to less than 100 can leave the flag on without a variant (and without a payload)", () => {
  const partial = flag({
    key: "multivariate-flag",
    kind: "multivariate",
    payload: "ignored for multivariate",
    variants: [{ key: "a", rollout_percentage: 50, payload: 1 }],
  });
  expect(evaluateFlag(partial, id0)).toEqual(on("multivariate-flag", 0, null, null));
});

test("a rule's variant override applies when it names a variant; otherwise the hashed variant; never on boolean flags", () => {
  const withRule = (rule: FlagRule) => flag({ key: "multivariate-flag", kind: "multivariate", variants: abc(), rules: [rule] });
  expect([
    evaluateFlag(withRule(everyone(null, "c")), id0),
    evaluateFlag(withRule(everyone(null, "zzz")), id0),
    evaluateFlag(flag({ key: "simple-flag", rules: [everyone(null, "c")] }), id0),
  ]).toEqual([on("multivariate-flag", 0, "c"), on("multivariate-flag", 0, "b"), on("simple-flag", 0)]);

  const forcedForPro = flag({
    key: "multivariate-flag",
    kind: "multivariate",
    variants: abc(),
    rules: [planIs("pro", "a"), everyone(null)],
  });
  const as = (plan: string) =>
    evaluateFlag(forcedForPro, context({ distinct_id: "distinct_id_0", person_properties: { plan } }));
  expect([as("pro"), as("free")]).toEqual([on("multivariate-flag", 0, "a"), on("multivariate-flag", 1, "b")]);
});

test("group stickiness hashes the group key (team-flag.acme is 0.388) and reads the group's properties", () => {
  const teamFlag = (rules: FlagRule[]) =>
    flag({
      key: "team-flag",
      kind: "multivariate",
      stickiness: { group_type_index: 0 },
      variants: [
        { key: "x", rollout_percentage: 70 },
        { key: "y", rollout_percentage: 30 },
      ],
      rules,
    });
  const member = context({
    distinct_id: "someone",
    groups: { company: "acme" },
    group_properties: { company: { plan: "enterprise" } },
  });
  const groupRule = (key: string, value: string): FlagRule => ({
    properties: [{ type: "group", group_type_index: 0, key, operator: "eq", value }],
    rollout_percentage: null,
    variant: null,
  });
  expect([
    evaluateFlag(teamFlag([everyone(39)]), member),
    evaluateFlag(teamFlag([everyone(38)]), member),
    evaluateFlag(teamFlag([groupRule("plan", "free"), groupRule("plan", "Enterprise")]), member),
    evaluateFlag(teamFlag([groupRule("$group_key", "ACME")]), member),
    evaluateFlag(teamFlag([everyone(null)]), context({ distinct_id: "someone" })),
    evaluateFlag(teamFlag([everyone(null)]), { ...member, group_types: [] }),
  ]).toEqual([
    on("team-flag", 0, "y"),
    off("team-flag", "out_of_rollout_bound", 0, "Out of rollout bound"),
    on("team-flag", 1, "y"),
    on("team-flag", 0, "y"),
    off("team-flag", "no_group_type", null, "No group type"),
    off("team-flag", "no_group_type", null, "No group type"),
  ]);
});

test("a group condition without the group does not hold, even negated; distinct_id is a person property", () => {
  const personFlag = flag({
    key: "mixed",
    rules: [
      {
        properties: [{ type: "group", group_type_index: 0, key: "plan", operator: "neq", value: "free" }],
        rollout_percentage: null,
        variant: null,
      },
      {
        properties: [{ type: "person", key: "distinct_id", operator: "regex", value: "^user-" }],
        rollout_percentage: null,
        variant: null,
      },
    ],
  });
  expect([
    evaluateFlag(personFlag, context({ distinct_id: "user-1" })),
    evaluateFlag(personFlag, context({ distinct_id: "bot-1" })),
    evaluateFlag(personFlag, context({ distinct_id: "bot-1", groups: { company: "acme" } })),
  ]).toEqual([on("mixed", 1), off("mixed", "no_condition_match", 1, "No matching condition set"), on("mixed", 0)]);
});

test("evaluateFlags keeps the flags' order and evaluates only the requested keys", () => {
  const flags = [flag({ key: "one" }), flag({ key: "two", enabled: false }), flag({ key: "three" })];
  expect(evaluateFlags(flags, id0).map((result) => [result.key, result.enabled])).toEqual([
    ["one", true],
    ["two", false],
    ["three", true],
  ]);
  expect(evaluateFlags(flags, id0, ["three", "one", "missing"]).map((result) => result.key)).toEqual(["one", "three"]);
});
