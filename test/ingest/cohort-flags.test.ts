// Flags with cohort conditions end to end: rules and cohorts made through the console, a
// behavioural cohort calculated in the region through the console's calculate, the snapshot
// published to the region; POST /flags reads the stored membership of the request's person
// (through merges, and a recalculation at once); a property cohort is matched on properties and
// published in /flags/definitions, where the real posthog-node evaluates it locally and asks
// the server for the other.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PostHog } from "posthog-node";
import { nativeEvent, postIngest, sendAccepted, startDedicatedService, type DedicatedService } from "./helpers.ts";

/** A behavioural cohort (matched on its membership) and a property cohort, made through the console. */
let buyers: string;
let pro: string;
const proDefinition = { type: "and", values: [{ type: "person", key: "plan", operator: "eq", value: "pro" }] };
const buyersDefinition = (count: number) => ({ type: "and", values: [{ type: "performed", event: "purchase", count_operator: "gte", count, days: 7 }] });

let dedicated: DedicatedService;
let production: string;
let secret: string;

const flagsPath = () => `/app/projects/${dedicated.project.id}/flags`;
const cohortsPath = () => `/app/projects/${dedicated.project.id}/cohorts`;
/** Gives the buyers cohort a definition (at least `count` purchases) and calculates it in production: its size. */
async function recalculate(count: number): Promise<number> {
  expect((await dedicated.owner.client.patch(`${cohortsPath()}/${buyers}`, { definition: buyersDefinition(count) })).status).toBe(200);
  const calculated = await dedicated.owner.client.post(`${cohortsPath()}/${buyers}/calculate`, { environment: "production" });
  expect([calculated.status, calculated.body.calculation.status]).toEqual([200, "ok"]);
  return calculated.body.calculation.size;
}
const ask = (distinctId: string, extra: Record<string, unknown> = {}) => postIngest(dedicated.service.url, { api_key: production, distinct_id: distinctId, ...extra }, { path: "/flags" });
const enabledFlags = (reply: { body: any }) => Object.fromEntries(Object.entries(reply.body.flags).map(([key, value]: [string, any]) => [key, value.enabled]));

beforeAll(async () => {
  dedicated = await startDedicatedService();
  production = dedicated.publicKeys.find((key: any) => key.environment === "production").key;
  await sendAccepted(dedicated.service.url, production, [
    nativeEvent({ event: "purchase", distinct_id: "buyer-1" }),
    nativeEvent({ event: "purchase", distinct_id: "buyer-2" }),
    nativeEvent({ event: "$pageview", distinct_id: "visitor" }),
  ]);
  const made = await Promise.all([
    dedicated.owner.client.post(cohortsPath(), { kind: "dynamic", name: "Buyers", definition: buyersDefinition(1) }),
    dedicated.owner.client.post(cohortsPath(), { kind: "dynamic", name: "Pro", definition: proDefinition }),
  ]);
  expect(made.map((reply) => reply.status)).toEqual([201, 201]);
  buyers = made[0]!.body.id;
  pro = made[1]!.body.id;
  expect(await recalculate(1)).toBe(2);
  const flags = [
    { key: "buyers-only", name: "Buyers", rules: [{ properties: [{ type: "cohort", cohort_id: buyers.toUpperCase() }] }] },
    { key: "not-buyers", name: "Not buyers", rules: [{ properties: [{ type: "cohort", cohort_id: buyers, operator: "not_in" }] }] },
    { key: "pro-cohort", name: "Pro", rules: [{ properties: [{ type: "cohort", cohort_id: pro }] }] },
  ];
  for (const body of flags) {
    const created = await dedicated.owner.client.post(flagsPath(), body);
    expect(created.status).toBe(201);
    expect((await dedicated.owner.client.patch(`${flagsPath()}/${created.body.id}/environments/production`, { enabled: true })).status).toBe(200);
  }
  secret = (await dedicated.owner.client.post(`/app/projects/${dedicated.project.id}/flag-secret-keys`, { environment: "production", name: "cohorts" })).body.secret;
});

afterAll(async () => {
  await dedicated.dispose();
});

describe("cohort conditions in the console", () => {
  test("stored with their operator (default in) and the id in lower case", async () => {
    const listed = await dedicated.owner.client.get(flagsPath());
    const buyersOnly = listed.body.flags.find((flag: any) => flag.key === "buyers-only");
    expect(buyersOnly.environments.production.rules).toEqual([{ properties: [{ type: "cohort", cohort_id: buyers, operator: "in" }], rollout_percentage: null, variant: null }]);
  });

  test("malformed cohort conditions are refused", async () => {
    const condition = (properties: unknown) => ({ key: "bad", name: "Bad", rules: [{ properties: [properties] }] });
    const cases: [unknown, string][] = [
      [{ type: "cohort" }, "rules[0].properties[0]: a cohort condition needs cohort_id"],
      [{ type: "cohort", cohort_id: buyers, key: "plan" }, "rules[0].properties[0]: a cohort condition takes cohort_id and operator only, not key"],
      [{ type: "cohort", cohort_id: buyers, operator: "eq" }, "rules[0].properties[0]: a cohort condition's operator is in or not_in"],
      [{ type: "person", key: "plan", operator: "eq", value: "pro", cohort_id: buyers }, "rules[0].properties[0]: cohort_id is only for cohort conditions"],
      [{ type: "person", operator: "is_set" }, "rules[0].properties[0]: a person condition needs key"],
      [{ type: "person", key: "plan" }, "rules[0].properties[0]: a person condition needs operator"],
    ];
    const replies = [];
    for (const [properties] of cases) replies.push(await dedicated.owner.client.post(flagsPath(), condition(properties)));
    expect(replies.map((reply) => [reply.status, reply.body])).toEqual(cases.map(([, message]) => [400, { error: { code: "validation", message } }]));
    const malformedId = await dedicated.owner.client.post(flagsPath(), condition({ type: "cohort", cohort_id: "buyers" }));
    expect([malformedId.status, malformedId.body.error.code]).toEqual([400, "validation"]);
  });
});

describe("remote evaluation (POST /flags)", () => {
  test("a stored cohort by the request's person, a property cohort by its properties", async () => {
    const replies = [await ask("buyer-1"), await ask("visitor", { person_properties: { plan: "pro" } }), await ask("never-seen")];
    expect(replies.map(enabledFlags)).toEqual([
      { "buyers-only": true, "not-buyers": false, "pro-cohort": false },
      { "buyers-only": false, "not-buyers": true, "pro-cohort": true },
      { "buyers-only": false, "not-buyers": true, "pro-cohort": false },
    ]);
    expect((await ask("buyer-1")).body.flags["buyers-only"]).toEqual({
      enabled: true, variant: null, payload: null, reason: { code: "condition_match", condition_index: 0, description: "Matched condition set 1" },
    });
  });

  test("a distinct id merged into a member counts as the member; a recalculation counts at once", async () => {
    await sendAccepted(dedicated.service.url, production, [nativeEvent({ event: "$identify", distinct_id: "buyer-2", properties: { $anon_distinct_id: "phone-of-buyer-2" } })]);
    expect(enabledFlags(await ask("phone-of-buyer-2"))["buyers-only"]).toBe(true);
    expect(await recalculate(2)).toBe(0);
    expect(enabledFlags(await ask("buyer-1"))["buyers-only"]).toBe(false);
    expect(await recalculate(1)).toBe(2);
    expect(enabledFlags(await ask("buyer-1"))["buyers-only"]).toBe(true);
  });
});

describe("local evaluation", () => {
  test("the definitions carry the property cohort only; posthog-node evaluates it locally and asks the server for the other", async () => {
    const host = `${dedicated.service.url}/ingest/eu`;
    const document = await (await fetch(`${host}/flags/definitions?token=${production}`, { headers: { authorization: `Bearer ${secret}` } })).json() as any;
    expect(document.cohorts).toEqual({ [pro]: { type: "AND", values: [{ key: "plan", value: "pro", operator: "exact", type: "person" }] } });
    expect(document.flags.find((flag: any) => flag.key === "not-buyers").filters.groups[0].properties).toEqual([{ key: "id", value: buyers, operator: "not_in", type: "cohort" }]);
    const client = new PostHog(production, { host, personalApiKey: secret, featureFlagsPollingInterval: 3_600_000, fetchRetryCount: 0, flushAt: 1_000 });
    try {
      expect(await client.waitForLocalEvaluationReady(10_000)).toBe(true);
      const only = { onlyEvaluateLocally: true, sendFeatureFlagEvents: false };
      expect(await client.getFeatureFlagResult("pro-cohort", "visitor", { ...only, personProperties: { plan: "pro" } })).toMatchObject({ key: "pro-cohort", enabled: true });
      expect(await client.getFeatureFlagResult("buyers-only", "buyer-1", only)).toBeUndefined();
      // Allowed to ask, the SDK gets the server's answer.
      expect(await client.getFeatureFlagResult("buyers-only", "buyer-1", { sendFeatureFlagEvents: false })).toMatchObject({ key: "buyers-only", enabled: true });
      expect(await client.getFeatureFlagResult("buyers-only", "visitor", { sendFeatureFlagEvents: false })).toMatchObject({ key: "buyers-only", enabled: false });
    } finally {
      await client.shutdown();
    }
  });
});
