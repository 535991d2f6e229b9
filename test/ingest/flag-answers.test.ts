// The flag answers written from cached pieces (server/ingest/flags/answer-writer.ts) must be
// exactly the pure builders' answers (engine/flags/responses.ts) for the same outcomes, for every
// kind of result and when the same pieces are reused across requests.
import { expect, test } from "bun:test";
import { evaluateFlags, FlagEvaluator } from "../../engine/flags/evaluate.ts";
import { nativeFlagsResponse, posthogFlagsV2Response } from "../../engine/flags/responses.ts";
import { contextSubject } from "../../engine/flags/subject.ts";
import type { EvaluationContext, FlagDefinition } from "../../engine/flags/types.ts";
import { FlagAnswerWriter } from "../../server/ingest/flags/answer-writer.ts";

const flag = (key: string, fields: Partial<FlagDefinition>): FlagDefinition => ({
  id: key.length, key, name: key, kind: "boolean", enabled: true, rules: [{ properties: [], rollout_percentage: null, variant: null }],
  variants: [], payload: null, salt: "", stickiness: "distinct_id", version: 3, ...fields,
});

const flags: FlagDefinition[] = [
  flag("on", { payload: { a: 1 } }),
  flag("off", { enabled: false, payload: "x" }),
  flag("half", { rules: [{ properties: [], rollout_percentage: 50, variant: null }] }),
  flag("pro", { rules: [{ properties: [{ type: "person", key: "plan", operator: "eq", value: "pro" }], rollout_percentage: null, variant: null }] }),
  flag("variants", {
    kind: "multivariate",
    variants: [{ key: "a", rollout_percentage: 30, payload: [1] }, { key: "b", rollout_percentage: 30 }, { key: "c", rollout_percentage: 40, payload: "c" }],
  }),
  flag("company", { stickiness: { group_type_index: 0 } }),
  flag("quote\"key", { payload: "é\u2028" }),
];

test("pieces joined equal the builders' answers, across 500 subjects and repeated results", () => {
  const evaluator = new FlagEvaluator(flags);
  const writer = new FlagAnswerWriter(evaluator);
  for (let i = 0; i < 500; i++) {
    const context: EvaluationContext = {
      distinct_id: `user-${i}`, person_properties: i % 3 === 0 ? { plan: "pro" } : {}, groups: i % 2 === 0 ? { company: `c${i % 7}` } : {},
      group_properties: {}, group_types: ["company"],
    };
    const keys = i % 5 === 0 ? ["pro", "variants"] : undefined;
    const outcomes = evaluator.evaluate(contextSubject(context), keys);
    const results = evaluator.resultsOf(outcomes);
    expect(results).toEqual(evaluateFlags(flags, context, keys));
    const options = { requestId: crypto.randomUUID(), evaluatedAtMs: 1_700_000_000_000 + i, includeConfig: i % 2 === 0 };
    expect(JSON.parse(writer.posthogV2(outcomes, options))).toEqual(posthogFlagsV2Response(results, flags, options));
    expect(JSON.parse(writer.native(outcomes))).toEqual(nativeFlagsResponse(results));
  }
});
