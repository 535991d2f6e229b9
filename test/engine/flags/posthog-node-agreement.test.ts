// THE agreement test: the real posthog-node downloads our /flags/definitions and evaluates them
// with its own code; for 10,000 seeded subjects every answer it gives locally (value and payload)
// must equal our evaluator's. Flags published for server-side evaluation only must never be
// answered locally, and every other flag must be answered locally for most subjects (so the
// comparison is not vacuous).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { PostHog } from "posthog-node";
import { evaluateFlags } from "../../../engine/flags/evaluate.ts";
import { remoteOnlyCauses } from "../../../engine/flags/local-evaluation.ts";
import { posthogDefinitions } from "../../../engine/flags/posthog-definitions.ts";
import { flagValue } from "../../../engine/flags/responses.ts";
import type { EvaluationContext, FlagCondition, FlagDefinition, FlagRule } from "../../../engine/flags/types.ts";
import { seededRandom } from "../dataset.ts";

const SUBJECT_COUNT = 10_000;
const POLLING_INTERVAL_MS = 3_600_000;
const READY_TIMEOUT_MS = 10_000;
const MIN_LOCALLY_ANSWERED_SHARE = 0.5;
const GROUP_TYPES = ["company", "project"];

const person = (key: string, operator: FlagCondition["operator"], value?: FlagCondition["value"]): FlagCondition =>
  value === undefined ? { type: "person", key, operator } : { type: "person", key, operator, value };
const company = (key: string, operator: FlagCondition["operator"], value: FlagCondition["value"]): FlagCondition => ({
  type: "group",
  group_type_index: 0,
  key,
  operator,
  value,
});
const rule = (properties: FlagCondition[], rollout: number | null = null, variant: string | null = null): FlagRule => ({
  properties,
  rollout_percentage: rollout,
  variant,
});

let nextId = 1;
function flag(key: string, fields: Partial<FlagDefinition>): FlagDefinition {
  return {
    id: nextId++,
    key,
    name: key,
    kind: "boolean",
    enabled: true,
    rules: [rule([])],
    variants: [],
    payload: null,
    salt: "",
    stickiness: "distinct_id",
    version: 3,
    ...fields,
  };
}

const threeVariants = [
  { key: "control", rollout_percentage: 33, payload: { color: "grey" } },
  { key: "test", rollout_percentage: 33, payload: "123" },
  { key: "bold", rollout_percentage: 34, payload: [1, { nested: true }] },
];

const FLAGS: FlagDefinition[] = [
  flag("rollout-37-5", { rules: [rule([], 37.5)], payload: { tier: 1 } }),
  flag("everyone", { payload: "123" }),
  flag("nobody", { rules: [rule([], 0)] }),
  flag("three-variants", { kind: "multivariate", variants: threeVariants, rules: [rule([], 80)] }),
  flag("override-for-example-emails", {
    kind: "multivariate",
    variants: threeVariants,
    rules: [rule([person("email", "contains", "@example.com")], null, "bold"), rule([], 50)],
  }),
  flag("override-for-paid-plans", {
    kind: "multivariate",
    variants: threeVariants,
    rules: [rule([person("plan", "in", ["pro", "team"])], 90, "test"), rule([person("age", "gte", 18)])],
  }),
  flag("invalid-override", { kind: "multivariate", variants: threeVariants, rules: [rule([], null, "nope")] }),
  flag("plan-eq", { rules: [rule([person("plan", "eq", "pro")])] }),
  flag("plan-neq", { rules: [rule([person("plan", "neq", "free")], 70)] }),
  flag("country-in", { rules: [rule([person("country", "in", ["fr", "DE", 5])])] }),
  flag("country-not-in", { rules: [rule([person("country", "not_in", ["us", "gb"])])] }),
  flag("email-contains", { rules: [rule([person("email", "contains", "GMAIL")])], payload: 0 }),
  flag("email-not-contains", { rules: [rule([person("email", "not_contains", "example")])] }),
  flag("email-regex", { rules: [rule([person("email", "regex", "^[a-z]+[0-9]*@")])] }),
  flag("not-a-bot", { rules: [rule([person("distinct_id", "not_regex", "^bot-")])] }),
  flag("age-range", { rules: [rule([person("age", "gte", 18), person("age", "lt", "65")], 60)] }),
  flag("score-ordering", { rules: [rule([person("score", "gt", 0.5)]), rule([person("score", "lte", "0.1")])] }),
  flag("beta-set", { rules: [rule([person("beta", "is_set")])] }),
  flag("beta-not-set", { rules: [rule([person("beta", "is_not_set")])] }),
  flag("beta-true", { rules: [rule([person("beta", "eq", true)])] }),
  flag("beta-false", { rules: [rule([person("beta", "eq", "false")])] }),
  flag("pro-adults", { rules: [rule([person("plan", "eq", "pro"), person("age", "gt", 21)], 60)] }),
  flag("company-rollout", {
    stickiness: { group_type_index: 0 },
    rules: [rule([company("plan", "eq", "enterprise")]), rule([], 30)],
    payload: { seats: 10 },
  }),
  flag("company-variants", {
    kind: "multivariate",
    variants: threeVariants,
    stickiness: { group_type_index: 0 },
    rules: [rule([company("$group_key", "eq", "acme")], null, "control"), rule([company("plan", "neq", "free")], 75)],
  }),
  flag("disabled", { enabled: false, payload: { never: true } }),
  // Published for server-side evaluation only:
  flag("salted", { salt: "pepper", rules: [rule([], 50)] }),
  flag("person-flag-with-group-condition", { rules: [rule([company("plan", "eq", "enterprise")])] }),
  flag("empty-list", { rules: [rule([person("country", "in", [])])] }),
  flag("not-set-before-other-variant", {
    kind: "multivariate",
    variants: threeVariants,
    rules: [rule([person("plan", "is_not_set")], null, "bold"), rule([])],
  }),
  flag("override-after-plain-rule", {
    kind: "multivariate",
    variants: threeVariants,
    rules: [rule([person("plan", "eq", "team")]), rule([person("plan", "eq", "pro")], null, "test")],
  }),
];

const REMOTE_ONLY_KEYS = FLAGS.filter((candidate) => remoteOnlyCauses(candidate).length > 0).map((candidate) => candidate.key);

function pick<T>(random: () => number, choices: readonly T[]): T {
  return choices[Math.floor(random() * choices.length)]!;
}

// Varied on purpose: case, numbers as numbers and as text, integers and floats, booleans and
// their texts, null, and absent properties (each property is present four times out of five).
function subject(index: number, random: () => number): EvaluationContext {
  const person_properties: Record<string, unknown> = {};
  const maybe = (key: string, value: () => unknown) => {
    if (random() < 0.8) person_properties[key] = value();
  };
  maybe("plan", () => pick(random, ["free", "pro", "PRO", "team", "Pro ", null, 5, "enterprise"]));
  maybe("country", () => pick(random, ["fr", "FR", "de", "us", "gb", "GB", 5, "5", null]));
  maybe("email", () =>
    pick(random, [`user${index}@gmail.com`, `User${index}@Example.com`, "x@example.com", `${index}`, 12.5, null]),
  );
  maybe("age", () => {
    const years = Math.floor(random() * 90);
    return pick(random, [years, String(years), random() * 90, "abc", "25yo", null]);
  });
  maybe("score", () => pick(random, [random(), String(random()), "0.1", null, true]));
  maybe("beta", () => pick(random, [true, false, "true", "FALSE", "yes", 1, 0, null]));
  const groups: Record<string, string> = {};
  const group_properties: Record<string, Record<string, unknown>> = {};
  if (random() < 0.7) {
    groups.company = pick(random, ["acme", "globex", "initech", `co-${index % 50}`]);
    group_properties.company = random() < 0.8 ? { plan: pick(random, ["enterprise", "free", "Enterprise", null]) } : {};
  }
  const distinct_id = pick(random, [`user-${index}`, `bot-${index}`, `${index}`, `User_${index}`]);
  return { distinct_id, person_properties, groups, group_properties, group_types: GROUP_TYPES };
}

let server: ReturnType<typeof Bun.serve>;
let client: PostHog;
const remoteEvaluationRequests: string[] = [];

beforeAll(async () => {
  const document = posthogDefinitions(FLAGS, GROUP_TYPES);
  server = Bun.serve({
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      // 5.70.0 polls /flags/definitions; older posthog-node versions polled this path.
      if (path === "/flags/definitions" || path === "/api/feature_flag/local_evaluation") {
        return Response.json(document);
      }
      if (path.startsWith("/flags") || path.startsWith("/decide")) remoteEvaluationRequests.push(path);
      return Response.json({ status: 1 });
    },
  });
  client = new PostHog("phc_agreement", {
    host: `http://localhost:${server.port}`,
    personalApiKey: "phs_agreement",
    featureFlagsPollingInterval: POLLING_INTERVAL_MS,
    disableGeoip: true,
  });
  expect(await client.waitForLocalEvaluationReady(READY_TIMEOUT_MS)).toBe(true);
});

afterAll(async () => {
  await client.shutdown();
  await server.stop(true);
});

test("the flags published for server-side evaluation are exactly the intended ones", () => {
  expect(REMOTE_ONLY_KEYS).toEqual([
    "salted",
    "person-flag-with-group-condition",
    "empty-list",
    "not-set-before-other-variant",
    "override-after-plain-rule",
  ]);
});

test("posthog-node's local answers equal ours for 10,000 subjects (values and payloads)", async () => {
  const random = seededRandom(20_260_707);
  const subjects = Array.from({ length: SUBJECT_COUNT }, (_, index) => subject(index, random));
  const mismatches: string[] = [];
  const answeredLocally = new Map<string, number>(FLAGS.map((candidate) => [candidate.key, 0]));

  // One subject at a time: posthog-node hashes through SubtleCrypto, which gets slower, not
  // faster, with many evaluations in flight.
  for (const context of subjects) {
    const { featureFlags = {}, featureFlagPayloads = {} } = await client.getAllFlagsAndPayloads(context.distinct_id, {
      groups: context.groups,
      personProperties: context.person_properties,
      groupProperties: context.group_properties,
      onlyEvaluateLocally: true,
    });
    for (const ours of evaluateFlags(FLAGS, context)) {
      const theirs = featureFlags[ours.key];
      if (theirs === undefined) continue;
      answeredLocally.set(ours.key, answeredLocally.get(ours.key)! + 1);
      // posthog-node leaves falsy payloads (such as 0) out of its payload map.
      const expectedPayload = ours.enabled && ours.payload ? ours.payload : undefined;
      if (theirs !== flagValue(ours) || !Bun.deepEquals(featureFlagPayloads[ours.key], expectedPayload)) {
        const posthogNode = JSON.stringify([theirs, featureFlagPayloads[ours.key]]);
        const ourAnswer = JSON.stringify([flagValue(ours), ours.payload]);
        mismatches.push(`${ours.key} for ${JSON.stringify(context)}: posthog-node ${posthogNode}, ours ${ourAnswer}`);
      }
    }
  }

  expect(mismatches.slice(0, 10)).toEqual([]);
  expect(remoteEvaluationRequests).toEqual([]);
  // (None of the server-only flags is disabled; a disabled one would be answered false locally.)
  expect(REMOTE_ONLY_KEYS.filter((key) => answeredLocally.get(key)! > 0)).toEqual([]);
  const rarelyLocal = FLAGS.filter((candidate) => !REMOTE_ONLY_KEYS.includes(candidate.key))
    .filter((candidate) => answeredLocally.get(candidate.key)! < SUBJECT_COUNT * MIN_LOCALLY_ANSWERED_SHARE)
    .map((candidate) => `${candidate.key}: ${answeredLocally.get(candidate.key)}`);
  expect(rarelyLocal).toEqual([]);
});

test("getFeatureFlagResult (one flag at a time) agrees too, including payloads", async () => {
  const random = seededRandom(7);
  const keys = ["three-variants", "override-for-paid-plans", "company-variants", "everyone", "rollout-37-5"];
  const mismatches: string[] = [];
  for (let index = 0; index < 300; index++) {
    const context = subject(index, random);
    const ours = evaluateFlags(FLAGS, context, keys);
    const theirs = await Promise.all(
      ours.map((result) =>
        client.getFeatureFlagResult(result.key, context.distinct_id, {
          groups: context.groups,
          personProperties: context.person_properties,
          groupProperties: context.group_properties,
          onlyEvaluateLocally: true,
          sendFeatureFlagEvents: false,
        }),
      ),
    );
    ours.forEach((result, offset) => {
      const answer = theirs[offset];
      if (answer === undefined) return;
      const { key, enabled } = result;
      const expected = { key, enabled, variant: result.variant ?? undefined, payload: result.payload ?? undefined };
      const actual = { key: answer.key, enabled: answer.enabled, variant: answer.variant, payload: answer.payload };
      if (!Bun.deepEquals(actual, expected)) {
        mismatches.push(`${JSON.stringify(context)}: ${JSON.stringify([actual, expected])}`);
      }
    });
  }
  expect(mismatches.slice(0, 10)).toEqual([]);
});
