// Flag evaluation on the ingest surface (spec 2: POST /flags, GET /flags/definitions, /decide
// and /flags?v=2 in PostHog's shapes; docs/flag-evaluation.md): whole answers per endpoint and
// version, person properties from the person store overridden by the request's, errors in the
// ingest shape with CORS, and definitions guarded by flag secret keys with ETag and 304.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectCors, nativeEvent, postIngest, sendAccepted, startDedicatedService, type DedicatedService } from "./helpers.ts";

let dedicated: DedicatedService;
let production: string;
let staging: string;
let ids: Record<string, number>;

const flagsPath = () => `/app/projects/${dedicated.project.id}/flags`;

async function createFlag(body: Record<string, unknown>, environments: Record<string, Record<string, unknown>>) {
  const created = await dedicated.owner.client.post(flagsPath(), body);
  expect(created.status).toBe(201);
  let flag = created.body;
  for (const [environment, change] of Object.entries(environments)) {
    const reply = await dedicated.owner.client.patch(`${flagsPath()}/${flag.id}/environments/${environment}`, change);
    expect(reply.status).toBe(200);
    flag = reply.body;
  }
  return flag;
}

beforeAll(async () => {
  dedicated = await startDedicatedService();
  production = dedicated.publicKeys.find((key: any) => key.environment === "production").key;
  staging = dedicated.publicKeys.find((key: any) => key.environment === "staging").key;
  // A stored person: plan "pro" set by an event, so rules can read it without the request sending it.
  await sendAccepted(dedicated.service.url, production, [nativeEvent({ distinct_id: "stored-user", $set: { plan: "pro" } })]);
  const everyone = await createFlag({ key: "everyone", name: "Everyone", payload: { banner: "hello" } }, { production: { enabled: true } });
  const proOnly = await createFlag(
    { key: "pro-only", name: "Pro only", rules: [{ properties: [{ type: "person", key: "plan", operator: "eq", value: "pro" }] }] },
    { production: { enabled: true } },
  );
  const variants = [{ key: "control", rollout_percentage: 0 }, { key: "test", rollout_percentage: 100, payload: [1, 2] }];
  const pricing = await createFlag({ key: "pricing", name: "Pricing", kind: "multivariate", variants }, { production: { enabled: true } });
  const off = await createFlag({ key: "switched-off", name: "Off" }, {});
  const stagingOnly = await createFlag({ key: "staging-only", name: "Staging" }, { staging: { enabled: true } });
  ids = Object.fromEntries(
    [everyone, proOnly, pricing, off, stagingOnly].map((flag) => [flag.key, dedicated.service.nodes.get("eu")!.store.flags.snapshot(dedicated.project.id, "production")!.flags.find((f) => f.key === flag.key)!.id]),
  );
});

afterAll(async () => {
  await dedicated.dispose();
});

const reason = (code: string, condition_index: number | null, description: string) => ({ code, condition_index, description });
const matched = reason("condition_match", 0, "Matched condition set 1");
const disabled = reason("flag_disabled", null, "Feature flag is disabled");
const notMatched = reason("no_condition_match", 0, "No matching condition set");

describe("POST /flags (native)", () => {
  test("every flag of the key's environment: enabled, variant, payload, reason; stored person properties count", async () => {
    const reply = await postIngest(dedicated.service.url, { api_key: production, distinct_id: "stored-user" }, { path: "/flags" });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      flags: {
        everyone: { enabled: true, variant: null, payload: { banner: "hello" }, reason: matched },
        pricing: { enabled: true, variant: "test", payload: [1, 2], reason: matched },
        "pro-only": { enabled: true, variant: null, payload: null, reason: matched },
        "staging-only": { enabled: false, variant: null, payload: null, reason: disabled },
        "switched-off": { enabled: false, variant: null, payload: null, reason: disabled },
      },
    });
  });

  test("properties sent in the request override stored ones; flag_keys limits the answer", async () => {
    const reply = await postIngest(dedicated.service.url, { api_key: production, distinct_id: "stored-user", person_properties: { plan: "free" }, flag_keys: ["pro-only"] }, { path: "/flags" });
    expect(reply.body).toEqual({ flags: { "pro-only": { enabled: false, variant: null, payload: null, reason: notMatched } } });
    const unknown = await postIngest(dedicated.service.url, { api_key: production, distinct_id: "nobody" }, { path: "/flags" });
    expect(unknown.body.flags["pro-only"]).toEqual({ enabled: false, variant: null, payload: null, reason: notMatched });
  });

  test("a property an event sets is read by the next flag request (stored properties are not served stale)", async () => {
    const ask = async () => (await postIngest(dedicated.service.url, { api_key: production, distinct_id: "changing-user", flag_keys: ["pro-only"] }, { path: "/flags" })).body.flags["pro-only"].enabled;
    await sendAccepted(dedicated.service.url, production, [nativeEvent({ distinct_id: "changing-user", $set: { plan: "pro" } })]);
    expect(await ask()).toBe(true);
    expect(await ask()).toBe(true);
    await sendAccepted(dedicated.service.url, production, [nativeEvent({ distinct_id: "changing-user", $set: { plan: "free" } })]);
    expect(await ask()).toBe(false);
  });

  test("concurrent requests each get their own subject's answer", async () => {
    const ask = (index: number) =>
      postIngest(dedicated.service.url, { api_key: production, distinct_id: `concurrent-${index}`, person_properties: { plan: index % 3 === 0 ? "pro" : "free" } }, { path: "/flags" });
    const replies = await Promise.all(Array.from({ length: 300 }, (_, index) => ask(index)));
    const oneAtATime: unknown[] = [];
    for (let index = 0; index < 300; index++) oneAtATime.push((await ask(index)).body);
    expect(replies.map((reply) => reply.body)).toEqual(oneAtATime);
    expect(replies.map((reply) => reply.body.flags["pro-only"].enabled)).toEqual(Array.from({ length: 300 }, (_, index) => index % 3 === 0));
  });

  test("another environment's key gets that environment's configuration", async () => {
    const reply = await postIngest(dedicated.service.url, { api_key: staging, distinct_id: "stored-user" }, { path: "/flags" });
    expect(Object.fromEntries(Object.entries(reply.body.flags).map(([key, value]: [string, any]) => [key, value.enabled]))).toEqual({
      everyone: false, pricing: false, "pro-only": false, "staging-only": true, "switched-off": false,
    });
  });

  test("errors in the ingest shape: no distinct_id 400, unknown key 401, bad version 400", async () => {
    expect(await postIngest(dedicated.service.url, { api_key: production }, { path: "/flags" })).toMatchObject({ status: 400, body: { error: "distinct_id is missing" } });
    expect(await postIngest(dedicated.service.url, { api_key: "svc_pk_eu_production_nope", distinct_id: "a" }, { path: "/flags" })).toMatchObject({
      status: 401, body: { error: "api_key is not a key of region eu" },
    });
    expect(await postIngest(dedicated.service.url, { token: production, distinct_id: "a" }, { path: "/flags", query: "v=3" })).toMatchObject({
      status: 400, body: { error: "/flags takes v=2 (or no v); got v=3" },
    });
    expect(await postIngest(dedicated.service.url, { api_key: production, distinct_id: "a", groups: [] }, { path: "/flags" })).toMatchObject({
      status: 400, body: { error: "groups must be an object" },
    });
  });
});

describe("PostHog's shapes", () => {
  const envelope = { requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), evaluatedAt: expect.any(Number) };
  const config = {
    supportedCompression: ["gzip", "gzip-js"], sessionRecording: false, surveys: false, heatmaps: false, capturePerformance: false,
    autocaptureExceptions: false, isAuthenticated: false, toolbarParams: {}, config: { enable_collect_everything: true },
  };
  const body = () => ({ token: production, distinct_id: "stored-user" });
  const detail = (key: string, enabled: boolean, variant: string | null, why: object, payload: string | null) => ({
    key, enabled, variant, reason: why, metadata: { id: ids[key], version: key === "switched-off" || key === "staging-only" ? 1 : 2, description: null, payload },
  });
  const v2Flags = () => ({
    everyone: detail("everyone", true, null, matched, '{"banner":"hello"}'),
    pricing: detail("pricing", true, "test", matched, "[1,2]"),
    "pro-only": detail("pro-only", true, null, matched, null),
    "staging-only": detail("staging-only", false, null, disabled, null),
    "switched-off": detail("switched-off", false, null, disabled, null),
  });
  const values = { everyone: true, pricing: "test", "pro-only": true, "staging-only": false, "switched-off": false };
  const payloads = { everyone: '{"banner":"hello"}', pricing: "[1,2]" };

  test("/flags?v=2 (and with config=true), /decide?v=4", async () => {
    expect((await postIngest(dedicated.service.url, body(), { path: "/flags/", query: "v=2" })).body).toEqual({ errorsWhileComputingFlags: false, flags: v2Flags(), ...envelope });
    expect((await postIngest(dedicated.service.url, body(), { path: "/flags/", query: "v=2&config=true" })).body).toEqual({ errorsWhileComputingFlags: false, flags: v2Flags(), ...envelope, ...config });
    expect((await postIngest(dedicated.service.url, body(), { path: "/decide/", query: "v=4" })).body).toEqual({ errorsWhileComputingFlags: false, flags: v2Flags(), ...envelope, ...config });
  });

  test("/flags without v and /decide?v=3: values and payloads; v=2 enabled values; v=1 enabled keys", async () => {
    expect((await postIngest(dedicated.service.url, body(), { path: "/flags" })).body).toEqual({ errorsWhileComputingFlags: false, featureFlags: values, featureFlagPayloads: payloads, ...envelope });
    expect((await postIngest(dedicated.service.url, body(), { path: "/decide", query: "v=3" })).body).toEqual({
      errorsWhileComputingFlags: false, featureFlags: values, featureFlagPayloads: payloads, ...envelope, ...config,
    });
    expect((await postIngest(dedicated.service.url, body(), { path: "/decide", query: "v=2" })).body).toEqual({ featureFlags: { everyone: true, pricing: "test", "pro-only": true }, ...envelope, ...config });
    expect((await postIngest(dedicated.service.url, body(), { path: "/decide" })).body).toEqual({ featureFlags: ["everyone", "pricing", "pro-only"], ...envelope, ...config });
    expect(await postIngest(dedicated.service.url, body(), { path: "/decide", query: "v=5" })).toMatchObject({ status: 400, body: { error: "/decide takes v=1 to 4; got v=5" } });
  });

  test("gzip bodies are read like capture bodies", async () => {
    const reply = await postIngest(dedicated.service.url, undefined, { path: "/flags/", query: "v=2", raw: Bun.gzipSync(JSON.stringify(body())), headers: { "content-type": "text/plain" } });
    expect(reply.body.flags.pricing.variant).toBe("test");
  });
});

describe("GET /flags/definitions", () => {
  const get = (query: string, headers: Record<string, string> = {}) => fetch(`${dedicated.service.url}/ingest/eu/flags/definitions?${query}`, { headers });

  test("a flag secret key of the key's environment: PostHog's document with an ETag; 304 while it is current; a change makes a new one", async () => {
    const created = await dedicated.owner.client.post(`/app/projects/${dedicated.project.id}/flag-secret-keys`, { environment: "production", name: "api" });
    const auth = { authorization: `Bearer ${created.body.secret}` };
    const first = await get(`token=${production}&send_cohorts`, auth);
    expect(first.status).toBe(200);
    expectCors(first.headers);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const document = (await first.json()) as any;
    expect(document.group_type_mapping).toEqual({});
    expect(document.cohorts).toEqual({});
    expect(document.flags.map((flag: any) => [flag.key, flag.active, flag.id])).toEqual([
      ["everyone", true, ids.everyone], ["pricing", true, ids.pricing], ["pro-only", true, ids["pro-only"]], ["staging-only", false, ids["staging-only"]], ["switched-off", false, ids["switched-off"]],
    ]);
    expect(document.flags[2].filters.groups).toEqual([{ properties: [{ key: "plan", value: "pro", operator: "exact", type: "person" }], rollout_percentage: null, variant: null }]);
    const unchanged = await get(`token=${production}`, { ...auth, "if-none-match": etag });
    expect([unchanged.status, await unchanged.text()]).toEqual([304, ""]);
    const everyone = (await dedicated.owner.client.get(flagsPath())).body.flags.find((flag: any) => flag.key === "everyone");
    expect((await dedicated.owner.client.patch(`${flagsPath()}/${everyone.id}`, { name: "Everyone!" })).status).toBe(200);
    const changed = await get(`token=${production}`, { ...auth, "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    // PostHog's older path answers the same.
    const older = await fetch(`${dedicated.service.url}/ingest/eu/api/feature_flag/local_evaluation?token=${production}`, { headers: auth });
    expect([older.status, older.headers.get("etag")]).toEqual([200, changed.headers.get("etag")]);
  });

  test("without a secret, with another environment's, or a revoked one: 401", async () => {
    const stagingSecret = (await dedicated.owner.client.post(`/app/projects/${dedicated.project.id}/flag-secret-keys`, { environment: "staging", name: "s" })).body;
    const productionSecret = (await dedicated.owner.client.post(`/app/projects/${dedicated.project.id}/flag-secret-keys`, { environment: "production", name: "p" })).body;
    await dedicated.owner.client.post(`/app/projects/${dedicated.project.id}/flag-secret-keys/${productionSecret.key.id}/revoke`);
    const cases: [Record<string, string>, string][] = [
      [{}, "flag definitions need a flag secret key (Authorization: Bearer svc_fsk_...)"],
      [{ authorization: `Bearer ${stagingSecret.secret}` }, "the flag secret key is unknown, revoked, or not one of this key's environment"],
      [{ authorization: `Bearer ${productionSecret.secret}` }, "the flag secret key is unknown, revoked, or not one of this key's environment"],
      [{ authorization: "Bearer svc_fsk_madeup" }, "the flag secret key is unknown, revoked, or not one of this key's environment"],
    ];
    for (const [headers, error] of cases) {
      const reply = await get(`token=${production}`, headers);
      expectCors(reply.headers);
      expect([reply.status, await reply.json()]).toEqual([401, { error }]);
    }
    const noToken = await get("", { authorization: `Bearer ${stagingSecret.secret}` });
    expect([noToken.status, await noToken.json()]).toEqual([401, { error: "api_key is missing" }]);
  });
});

test("remote config says hasFeatureFlags when the key's environment has an enabled flag", async () => {
  const config = async (key: string) => ((await (await fetch(`${dedicated.service.url}/ingest/eu/array/${key}/config`)).json()) as any).hasFeatureFlags;
  expect([await config(production), await config(staging)]).toEqual([true, true]);
  const development = dedicated.publicKeys.find((key: any) => key.environment === "development").key;
  expect(await config(development)).toBe(false);
});

// Last in the file: the flag it creates would change the whole answers the tests above expect.
test("group conditions read the group store's properties, overridden by the request's; a $groupidentify is seen by the next request", async () => {
  await createFlag(
    { key: "enterprise-companies", name: "Enterprise", stickiness: "group:company", rules: [{ properties: [{ type: "group", group_type: "company", key: "tier", operator: "eq", value: "enterprise" }] }] },
    { production: { enabled: true } },
  );
  const identify = (tier: string) =>
    sendAccepted(dedicated.service.url, production, [
      nativeEvent({ event: "$groupidentify", distinct_id: "admin", properties: { $group_type: "company", $group_key: "acme", $group_set: { tier } } }),
    ]);
  const ask = async (body: Record<string, unknown>) =>
    (await postIngest(dedicated.service.url, { api_key: production, distinct_id: "member", flag_keys: ["enterprise-companies"], ...body }, { path: "/flags" })).body.flags["enterprise-companies"];
  const on = { enabled: true, variant: null, payload: null, reason: matched };
  const off = { enabled: false, variant: null, payload: null, reason: notMatched };

  await identify("enterprise");
  expect(await ask({ groups: { company: "acme" } })).toEqual(on);
  expect(await ask({ groups: { company: "acme" }, group_properties: { company: { tier: "free" } } })).toEqual(off);
  expect(await ask({ groups: { company: "globex" } })).toEqual(off);
  expect(await ask({})).toEqual({ enabled: false, variant: null, payload: null, reason: reason("no_group_type", null, "No group type") });
  await identify("free");
  expect(await ask({ groups: { company: "acme" } })).toEqual(off);
  expect(await ask({ groups: { company: "acme" }, group_properties: { company: { tier: "enterprise" } } })).toEqual(on);
});
