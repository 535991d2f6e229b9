// posthog-node, unmodified from the npm registry, evaluating the service's flags both ways for
// 10,000 distinct ids: remotely (a client without a secret asks /flags?v=2 every time) and
// locally (a client holding a flag secret key downloads /flags/definitions once and evaluates
// with its own code). Flags are made through the console and published to the region as in
// production; every flag the SDK answers locally must equal the remote answer, value and
// payload; the flags the service publishes as server-only are never answered locally and
// every other flag is answered locally for most ids.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { PostHog } from "posthog-node";
import { nativeEvent, sendAccepted, startDedicatedService, type DedicatedService } from "../ingest/helpers.ts";
import { seededRandom } from "../engine/dataset.ts";

const distinctIds = 10_000;
/** Remote requests in flight at once (the answers do not depend on it; the suite's time does). */
const remoteConcurrency = 32;
const plans = ["free", "pro", "team", "enterprise"];
const companies = ["acme", "globex", "initech", "umbrella"];

let dedicated: DedicatedService;
let local: PostHog;
let remote: PostHog;
let flagKeys: string[];
/** Keys the service publishes with ensure_experience_continuity (never evaluated by SDKs). */
let serverOnly: string[];

const person = (key: string, operator: string, value?: unknown) => (value === undefined ? { type: "person", key, operator } : { type: "person", key, operator, value });

beforeAll(async () => {
  dedicated = await startDedicatedService();
  const production = dedicated.publicKeys.find((key: any) => key.environment === "production").key;
  // The group type exists in the region once an event names it.
  await sendAccepted(dedicated.service.url, production, [nativeEvent({ groups: { company: "acme" } })]);
  const three = [{ key: "a", rollout_percentage: 33 }, { key: "b", rollout_percentage: 33, payload: { b: true } }, { key: "c", rollout_percentage: 34, payload: "c" }];
  const flags: [Record<string, unknown>, Record<string, unknown>][] = [
    [{ key: "half", name: "Half", payload: { on: 1 }, rules: [{ rollout_percentage: 50 }] }, {}],
    [{ key: "three-way", name: "Three way", kind: "multivariate", variants: three }, {}],
    [{ key: "paying", name: "Paying", rules: [{ properties: [person("plan", "in", ["pro", "team"]), person("age", "gte", 30)], rollout_percentage: 80 }] }, {}],
    [{
      key: "acme-first", name: "Acme first", kind: "multivariate", variants: three,
      rules: [{ properties: [person("email", "contains", "@acme")], variant: "b" }, { properties: [person("email", "contains", "@")], rollout_percentage: 50 }],
    }, {}],
    [{ key: "big-companies", name: "Big companies", stickiness: "group:company", rules: [{ properties: [{ type: "group", group_type: "company", key: "seats", operator: "gt", value: 10 }], rollout_percentage: 70 }] }, {}],
    [{ key: "gmail", name: "Gmail", rules: [{ properties: [person("email", "regex", "@gmail\\.com$")] }] }, {}],
    [{ key: "no-plan", name: "No plan", rules: [{ properties: [person("plan", "is_not_set")] }] }, {}],
    [{ key: "not-free", name: "Not free", rules: [{ properties: [person("plan", "neq", "free"), person("age", "lt", 50)] }] }, {}],
    [{ key: "disabled", name: "Disabled" }, { enabled: false }],
    [{ key: "salted", name: "Salted", rules: [{ rollout_percentage: 50 }] }, { salt: "reshuffle" }],
  ];
  const path = `/app/projects/${dedicated.project.id}/flags`;
  for (const [body, change] of flags) {
    const created = await dedicated.owner.client.post(path, body);
    expect(created.status).toBe(201);
    const live = await dedicated.owner.client.patch(`${path}/${created.body.id}/environments/production`, { enabled: true, ...change });
    expect(live.status).toBe(200);
  }
  flagKeys = flags.map(([body]) => body.key as string).sort();
  const secret = (await dedicated.owner.client.post(`/app/projects/${dedicated.project.id}/flag-secret-keys`, { environment: "production", name: "posthog-node" })).body.secret;
  const host = `${dedicated.service.url}/ingest/eu`;
  const definitions = await fetch(`${host}/flags/definitions?token=${production}`, { headers: { authorization: `Bearer ${secret}` } });
  const published = ((await definitions.json()) as { flags: { key: string; ensure_experience_continuity: boolean }[] }).flags;
  serverOnly = published.filter((flag) => flag.ensure_experience_continuity).map((flag) => flag.key).sort();
  // The salted flag for certain; the rest only when their rules could be read differently by the SDK.
  expect(serverOnly).toContain("salted");
  expect(serverOnly.length).toBeLessThan(flagKeys.length / 2);
  local = new PostHog(production, { host, personalApiKey: secret, featureFlagsPollingInterval: 3_600_000, flushAt: 1_000, fetchRetryCount: 0 });
  remote = new PostHog(production, { host, flushAt: 1_000, fetchRetryCount: 0 });
  expect(await local.waitForLocalEvaluationReady(10_000)).toBe(true);
});

afterAll(async () => {
  await local?.shutdown();
  await remote?.shutdown();
  await dedicated?.dispose();
});

/** Seeded properties and groups of the i-th distinct id (some leave properties out). */
function subject(random: () => number, index: number) {
  const personProperties: Record<string, unknown> = {};
  if (random() < 0.8) personProperties.plan = plans[Math.floor(random() * plans.length)];
  personProperties.age = Math.floor(random() * 70) + 15;
  const domain = ["acme.com", "gmail.com", "example.org"][Math.floor(random() * 3)];
  personProperties.email = `user${index}@${domain}`;
  const company = companies[Math.floor(random() * companies.length)]!;
  return {
    distinctId: `flag-subject-${index}`,
    personProperties,
    groups: { company },
    groupProperties: { company: { seats: Math.floor(random() * 40) } },
  };
}

test("local and remote evaluation agree for 10,000 distinct ids", async () => {
  const random = seededRandom(2026);
  const subjects = Array.from({ length: distinctIds }, (_, index) => subject(random, index));
  const remoteAnswers = new Array<Awaited<ReturnType<PostHog["getAllFlagsAndPayloads"]>>>(distinctIds);
  for (let start = 0; start < distinctIds; start += remoteConcurrency) {
    await Promise.all(subjects.slice(start, start + remoteConcurrency).map(async (one, offset) => {
      remoteAnswers[start + offset] = await remote.getAllFlagsAndPayloads(one.distinctId, { personProperties: one.personProperties, groups: one.groups, groupProperties: one.groupProperties });
    }));
  }
  const enabledCounts = new Map<string, number>();
  const answeredLocally = new Map<string, number>();
  for (let index = 0; index < distinctIds; index++) {
    const one = subjects[index]!;
    const answered = complete(await local.getAllFlagsAndPayloads(one.distinctId, {
      personProperties: one.personProperties, groups: one.groups, groupProperties: one.groupProperties, onlyEvaluateLocally: true,
    }));
    const remoteAnswer = complete(remoteAnswers[index]!);
    expect(Object.keys(remoteAnswer.featureFlags).sort()).toEqual(flagKeys);
    // The SDK leaves a flag unanswered locally when it lacks a property a rule reads (it would
    // then ask the server); whatever it answers must be the server's answer.
    const localKeys = Object.keys(answered.featureFlags);
    const remotePart = {
      featureFlags: Object.fromEntries(localKeys.map((key) => [key, remoteAnswer.featureFlags[key]])),
      featureFlagPayloads: Object.fromEntries(Object.entries(remoteAnswer.featureFlagPayloads).filter(([key]) => localKeys.includes(key))),
    };
    if (JSON.stringify(sorted(answered)) !== JSON.stringify(sorted(remotePart))) {
      expect({ distinctId: one.distinctId, ...sorted(answered) }).toEqual({ distinctId: one.distinctId, ...sorted(remotePart) });
    }
    for (const key of localKeys) answeredLocally.set(key, (answeredLocally.get(key) ?? 0) + 1);
    for (const [key, value] of Object.entries(remoteAnswer.featureFlags)) if (value !== false) enabledCounts.set(key, (enabledCounts.get(key) ?? 0) + 1);
  }
  // Server-only flags are never answered locally; every other flag is, for most ids.
  expect(serverOnly.map((key) => answeredLocally.get(key) ?? 0)).toEqual(serverOnly.map(() => 0));
  for (const key of flagKeys.filter((key) => !serverOnly.includes(key))) {
    expect([key, (answeredLocally.get(key) ?? 0) >= distinctIds / 2]).toEqual([key, true]);
  }
  // Not vacuous: every live flag is on for some ids and off for others (the always-on flag aside).
  for (const key of flagKeys.filter((key) => key !== "disabled" && key !== "three-way")) {
    expect([key, (enabledCounts.get(key) ?? 0) > 0 && (enabledCounts.get(key) ?? 0) < distinctIds]).toEqual([key, true]);
  }
  expect([enabledCounts.get("disabled") ?? 0, enabledCounts.get("three-way")]).toEqual([0, distinctIds]);
}, 300_000);

/** The SDK's answer with both maps present (it leaves them out when there is nothing). */
const complete = (answer: { featureFlags?: Record<string, unknown>; featureFlagPayloads?: Record<string, unknown> }) => ({
  featureFlags: answer.featureFlags ?? {},
  featureFlagPayloads: answer.featureFlagPayloads ?? {},
});

function sorted(answer: { featureFlags: Record<string, unknown>; featureFlagPayloads: Record<string, unknown> }) {
  const order = (record: Record<string, unknown>) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { featureFlags: order(answer.featureFlags), featureFlagPayloads: order(answer.featureFlagPayloads) };
}
