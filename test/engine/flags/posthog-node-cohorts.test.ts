// Cohort conditions against the real posthog-node: it downloads our local-evaluation document
// (property cohorts in its `cohorts`) and evaluates with its own code. Whatever it answers
// locally must equal our evaluator's answer; flags on property cohorts are answered locally for
// most subjects; a flag that needs a cohort's stored membership is never answered locally, and
// without onlyEvaluateLocally the SDK asks the server for it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { PostHog } from "posthog-node";
import { evaluateFlags } from "../../../engine/flags/evaluate.ts";
import { posthogDefinitions } from "../../../engine/flags/posthog-definitions.ts";
import { flagValue } from "../../../engine/flags/responses.ts";
import { parseCohortDefinition } from "../../../engine/cohorts/definition.ts";
import type { EvaluationContext, FlagDefinition, FlagRuleCondition } from "../../../engine/flags/types.ts";
import { seededRandom } from "../dataset.ts";

const subjectCount = 2000;
const pollingIntervalMs = 3_600_000;
const readyTimeoutMs = 10_000;
/** A property cohort's flag is answered locally at least this often (subjects leave properties out at times). */
const locallyAnsweredShareMin = 0.4;

const proOrAdultFrench = "0193a7c2-0000-7000-8000-00000000f101";
const gmailUsers = "0193a7c2-0000-7000-8000-00000000f102";
const buyers = "0193a7c2-0000-7000-8000-00000000f103";
const propertyCohorts = new Map([
  [proOrAdultFrench, parseCohortDefinition({
    type: "or",
    values: [
      { type: "person", key: "plan", operator: "eq", value: "pro" },
      { type: "and", values: [{ type: "person", key: "age", operator: "gte", value: 18 }, { type: "person", key: "country", operator: "in", value: ["fr", "FR"] }] },
    ],
  })],
  [gmailUsers, parseCohortDefinition({ type: "and", values: [{ type: "person", key: "email", operator: "contains", value: "@gmail" }, { type: "person", key: "email", operator: "not_regex", value: "^bot" }] })],
]);

const cohort = (cohort_id: string, operator: "in" | "not_in" = "in"): FlagRuleCondition => ({ type: "cohort", cohort_id, operator });
let nextId = 1;
const flag = (key: string, rules: { properties: FlagRuleCondition[]; rollout_percentage?: number }[], fields: Partial<FlagDefinition> = {}): FlagDefinition => ({
  id: nextId++, key, name: key, kind: "boolean", enabled: true, variants: [], payload: null, salt: "", stickiness: "distinct_id", version: 1,
  rules: rules.map((rule) => ({ properties: rule.properties, rollout_percentage: rule.rollout_percentage ?? null, variant: null })), ...fields,
});

const propertyFlags = [
  flag("pro-or-adult-french", [{ properties: [cohort(proOrAdultFrench)] }], { payload: { cohort: true } }),
  flag("not-pro-or-adult-french", [{ properties: [cohort(proOrAdultFrench, "not_in")], rollout_percentage: 70 }]),
  flag("gmail-and-pro", [{ properties: [cohort(gmailUsers), cohort(proOrAdultFrench)] }, { properties: [], rollout_percentage: 10 }]),
];
const storedFlags = [flag("buyers", [{ properties: [cohort(buyers)] }]), flag("not-buyers", [{ properties: [cohort(buyers, "not_in")] }])];
/** A stored cohort beside a condition the SDK decides: it answers "no" locally when that condition fails. */
const enterpriseBuyers = flag("enterprise-buyers", [{ properties: [cohort(buyers), { type: "person", key: "plan", operator: "eq", value: "enterprise" }] }]);
const flags = [...propertyFlags, ...storedFlags, enterpriseBuyers];

const pick = <T>(random: () => number, values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

function subject(index: number, random: () => number): EvaluationContext {
  const person_properties: Record<string, unknown> = {};
  const maybe = (key: string, value: () => unknown) => {
    if (random() < 0.85) person_properties[key] = value();
  };
  maybe("plan", () => pick(random, ["free", "pro", "PRO", "enterprise", 5]));
  maybe("age", () => pick(random, [Math.floor(random() * 60), String(Math.floor(random() * 60)), "abc"]));
  maybe("country", () => pick(random, ["fr", "FR", "de", "us"]));
  maybe("email", () => pick(random, [`user${index}@gmail.com`, `bot${index}@gmail.com`, `user${index}@example.com`]));
  return { distinct_id: `user-${index}`, person_properties, groups: {}, group_properties: {}, group_types: [], cohorts: random() < 0.3 ? [buyers] : [] };
}

let server: ReturnType<typeof Bun.serve>;
let client: PostHog;
const remoteEvaluationRequests: string[] = [];

beforeAll(async () => {
  const document = posthogDefinitions(flags, [], propertyCohorts);
  server = Bun.serve({
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/flags/definitions" || path === "/api/feature_flag/local_evaluation") return Response.json(document);
      if (path.startsWith("/flags") || path.startsWith("/decide")) remoteEvaluationRequests.push(path);
      return Response.json({ flags: {}, errorsWhileComputingFlags: false });
    },
  });
  client = new PostHog("phc_cohorts", { host: `http://localhost:${server.port}`, personalApiKey: "phs_cohorts", featureFlagsPollingInterval: pollingIntervalMs, disableGeoip: true });
  expect(await client.waitForLocalEvaluationReady(readyTimeoutMs)).toBe(true);
});

afterAll(async () => {
  await client.shutdown();
  await server.stop(true);
});

test(`posthog-node's local answers equal ours for ${subjectCount} subjects; stored cohorts are left to the server`, async () => {
  const random = seededRandom(36);
  const mismatches: string[] = [];
  const answeredLocally = new Map<string, number>(flags.map((one) => [one.key, 0]));
  let enterpriseNo = 0;
  for (let index = 0; index < subjectCount; index++) {
    const context = subject(index, random);
    const { featureFlags = {}, featureFlagPayloads = {} } = await client.getAllFlagsAndPayloads(context.distinct_id, { personProperties: context.person_properties, onlyEvaluateLocally: true });
    for (const ours of evaluateFlags(flags, context, undefined, propertyCohorts)) {
      const theirs = featureFlags[ours.key];
      if (theirs === undefined) continue;
      answeredLocally.set(ours.key, answeredLocally.get(ours.key)! + 1);
      if (ours.key === enterpriseBuyers.key && theirs === false) enterpriseNo++;
      const expectedPayload = ours.enabled && ours.payload ? ours.payload : undefined;
      if (theirs !== flagValue(ours) || !Bun.deepEquals(featureFlagPayloads[ours.key], expectedPayload)) {
        mismatches.push(`${ours.key} for ${JSON.stringify(context)}: posthog-node ${JSON.stringify(theirs)}, ours ${JSON.stringify(flagValue(ours))}`);
      }
    }
  }
  expect(mismatches.slice(0, 10)).toEqual([]);
  expect(remoteEvaluationRequests).toEqual([]);
  expect(storedFlags.map((one) => [one.key, answeredLocally.get(one.key)])).toEqual(storedFlags.map((one) => [one.key, 0]));
  const rarelyLocal = propertyFlags.filter((one) => answeredLocally.get(one.key)! < subjectCount * locallyAnsweredShareMin).map((one) => `${one.key}: ${answeredLocally.get(one.key)}`);
  expect(rarelyLocal).toEqual([]);
  // Decided locally only where the plan is not enterprise (then it is "no" whatever the membership).
  expect(enterpriseNo).toBe(answeredLocally.get(enterpriseBuyers.key)!);
  expect(enterpriseNo).toBeGreaterThan(subjectCount / 2);
});

test("without onlyEvaluateLocally, a flag on a stored cohort is asked of the server", async () => {
  remoteEvaluationRequests.length = 0;
  await client.getFeatureFlagResult("buyers", "user-1", { personProperties: { plan: "pro" }, sendFeatureFlagEvents: false });
  expect(remoteEvaluationRequests).toEqual(["/flags/"]);
});
