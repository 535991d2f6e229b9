// The flag editor's draft (web/console/pages/flags/flag-draft.ts): a stored configuration read
// into text fields and written back unchanged, the checks a person hears about before saving,
// and the API's own refusals placed where they belong. The refusals are produced by the
// control plane's real checks (flag-config.ts, the request schema), not written out here.
import { expect, test } from "bun:test";
import type { FlagEnvironmentConfig } from "../../../web/console/api/flags-api.ts";
import {
  draftChange, draftProblems, environmentDraft, locateApiError, newCondition, newRule, newVariant, shownPlace, type EnvironmentDraft,
} from "../../../web/console/pages/flags/flag-draft.ts";
import { checkConfig, normalizeRules, normalizeVariants, type FlagConfig } from "../../../server/control/flags/flag-config.ts";
import { FlagEnvironmentUpdateRequest } from "../../../server/control/flags/flag-schemas.ts";
import { validateBody } from "../../../server/http/validate.ts";

const stored: FlagEnvironmentConfig = {
  environment: "production", enabled: true, payload: null, salt: "", stickiness: "group:company", version: 4, updated_at: "2026-11-27T10:00:00.000Z", updated_by: null,
  rules: [
    { properties: [{ type: "person", key: "age", operator: "gte", value: 18 }, { type: "person", key: "plan", operator: "in", value: ["pro", 5, true] }], rollout_percentage: null, variant: null },
    { properties: [{ type: "cohort", cohort_id: "0193a8c0-0000-7000-8000-000000000001", operator: "not_in" }, { type: "group", group_type: "company", key: "size", operator: "is_set" }], rollout_percentage: 25.5, variant: "test" },
  ],
  variants: [{ key: "control", name: null, rollout_percentage: 50, payload: null }, { key: "test", name: "Test", rollout_percentage: 50, payload: { color: "green", n: [1, 2] } }],
};

test("a stored configuration read into the editor and saved untouched is the same configuration", () => {
  const draft = environmentDraft(stored);
  expect(draftProblems("multivariate", draft)).toEqual([]);
  const { enabled, rules, salt, stickiness, variants } = stored;
  expect(draftChange("multivariate", draft)).toEqual({ enabled, rules, salt, stickiness, variants });
});

test("typed values become the API's: lists one per line, numbers for orderings, text otherwise; 100% of a stored null stays null", () => {
  const draft = environmentDraft(stored);
  const edited: EnvironmentDraft = {
    ...draft,
    rules: [
      {
        ...draft.rules[0]!,
        conditions: [
          { ...draft.rules[0]!.conditions[0]!, valueText: "21.5" },
          { ...draft.rules[0]!.conditions[1]!, valueText: "pro\n team \n\n" },
          { ...newCondition(), key: "email", operator: "contains", valueText: "42" },
          { ...newCondition(), key: "plan", operator: "in", valueText: "solo" },
        ],
      },
      { ...newRule(), rolloutText: "100" },
    ],
  };
  expect(draftChange("multivariate", edited).rules).toEqual([
    {
      properties: [
        { type: "person", key: "age", operator: "gte", value: 21.5 },
        { type: "person", key: "plan", operator: "in", value: ["pro", "team"] },
        { type: "person", key: "email", operator: "contains", value: "42" },
        { type: "person", key: "plan", operator: "in", value: ["solo"] },
      ],
      rollout_percentage: null,
      variant: null,
    },
    { properties: [], rollout_percentage: 100, variant: null },
  ]);
});

test("before saving: the split's sum, a payload that is not JSON, missing values, a bad pattern and a key reused are placed where they are", () => {
  const draft = environmentDraft(stored);
  const broken: EnvironmentDraft = {
    ...draft,
    rules: [{ ...draft.rules[0]!, conditions: [{ ...newCondition(), key: "plan", valueText: "" }, { ...newCondition(), key: "path", operator: "regex", valueText: "(" }], rolloutText: "120" }],
    variants: [{ ...draft.variants[0]!, rolloutText: "40" }, { ...draft.variants[1]!, payloadText: '{"color": ' }, { ...newVariant("control", 0) }],
  };
  const problems = draftProblems("multivariate", broken);
  expect(problems.map(({ place }) => place)).toEqual([
    { at: "rule", rule: 0, condition: 0 },
    { at: "rule", rule: 0, condition: 1 },
    { at: "rule", rule: 0 },
    { at: "variants", variant: 1 },
    { at: "variants", variant: 2 },
    { at: "variants" },
  ]);
  expect(problems[0]!.message).toBe("Give a value to compare with.");
  expect(problems[1]!.message).toStartWith("This is not a valid regular expression: ");
  expect(problems[2]!.message).toBe("The rollout is a percentage from 0 to 100.");
  expect(problems[3]!.message).toStartWith("The payload of variant test is not valid JSON: ");
  expect(problems[4]!.message).toBe("Variant key control is used twice.");
  expect(problems[5]!.message).toBe("Variant splits must add up to 100% (they add up to 90%).");
  // A boolean flag's one payload.
  expect(draftProblems("boolean", { ...environmentDraft({ ...stored, variants: [], rules: [] }), payloadText: "[1," }).map(({ place }) => place)).toEqual([{ at: "payload" }]);
});

/** The message the control plane answers for a configuration change. */
function apiMessage(kind: "boolean" | "multivariate", change: Record<string, unknown>): string {
  try {
    validateBody(FlagEnvironmentUpdateRequest, change);
    const config: FlagConfig = {
      enabled: true, payload: change.payload ?? null, salt: "", stickiness: (change.stickiness as string) ?? "distinct_id",
      rules: normalizeRules((change.rules as never) ?? []), variants: normalizeVariants((change.variants as never) ?? []),
    };
    checkConfig(kind, config);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the control plane accepted it");
}

test("the API's refusals land at the rule, condition, variants, payload or bucketing they name", () => {
  const variants = [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }];
  const cases: [string, unknown][] = [
    [apiMessage("boolean", { rules: [{}, { properties: [{ type: "person", key: "a", operator: "regex", value: "(" }] }] }), { at: "rule", rule: 1, condition: 0 }],
    [apiMessage("multivariate", { variants, rules: [{ variant: "other" }] }), { at: "rule", rule: 0 }],
    [apiMessage("boolean", { rules: [{ properties: [{ type: "person", key: "", operator: "eq", value: 1 }] }] }), { at: "rule", rule: 0, condition: 0 }],
    [apiMessage("boolean", { rules: [{ rollout_percentage: 101 }] }), { at: "rule", rule: 0 }],
    [apiMessage("multivariate", { variants: [{ key: "a b", rollout_percentage: 100 }] }), { at: "variants", variant: 0 }],
    [apiMessage("multivariate", { variants: [{ key: "a", rollout_percentage: 60 }, { key: "b", rollout_percentage: 60 }] }), { at: "variants" }],
    [apiMessage("multivariate", { variants, payload: { a: 1 } }), { at: "variants" }],
    [apiMessage("boolean", { payload: { a: 1 }, variants }), { at: "variants" }],
    ["body /payload: Expected union value", { at: "payload" }],
    [apiMessage("boolean", { stickiness: "company" }), { at: "bucketing" }],
    ["missing scope flags.production", { at: "general" }],
  ];
  for (const [message, place] of cases) expect({ message, place: locateApiError(message) }).toEqual({ message, place: place as never });
});

test("a refusal about something the editor does not show falls back to the nearest place it does", () => {
  const draft = environmentDraft(stored);
  expect([
    shownPlace("multivariate", draft, { at: "rule", rule: 0, condition: 1 }),
    shownPlace("multivariate", draft, { at: "rule", rule: 0, condition: 7 }),
    shownPlace("multivariate", draft, { at: "rule", rule: 5 }),
    shownPlace("multivariate", draft, { at: "variants", variant: 9 }),
    shownPlace("multivariate", draft, { at: "payload" }),
    shownPlace("boolean", draft, { at: "variants", variant: 0 }),
    shownPlace("boolean", draft, { at: "payload" }),
  ]).toEqual([
    { at: "rule", rule: 0, condition: 1 }, { at: "rule", rule: 0 }, { at: "general" }, { at: "variants" }, { at: "general" }, { at: "general" }, { at: "payload" },
  ]);
});
