// Metrics and experiments in the control plane (spec 1: MetricDto, ExperimentDto and its
// requests, the experiment routes, scopes experiments:*, experiments.ship, flags.production;
// docs/experiments.md for the state machine): every transition from every state, dry runs,
// the production gates, console and /v1 with the same bodies, and the plan.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { isoPattern, uuidPattern } from "../helpers/client.ts";

let service: TestService;
let owner: SignedUpUser;
let member: SignedUpUser;
let project: any;
let conversion: any;
let revenue: any;
let errors: any;

const base = () => `/app/projects/${project.id}`;
const variants = [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }];

async function multivariateFlag(key: string) {
  const created = await owner.client.post(`${base()}/flags`, { key, name: key, kind: "multivariate", variants });
  expect(created.status).toBe(201);
  return created.body;
}

async function metric(body: Record<string, unknown>) {
  const created = await owner.client.post(`${base()}/metrics`, body);
  expect(created.status).toBe(201);
  return created.body;
}

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Experiment Owner");
  member = await addMember(service, owner, "member");
  project = (await createProject(owner, "Experiments")).project;
  conversion = await metric({ key: "purchase", name: "Purchase", query: { kind: "proportion", event: "purchase_completed" } });
  revenue = await metric({ key: "revenue", name: "Revenue", query: { kind: "mean", event: "purchase_completed", property: "price" }, unit: "EUR" });
  errors = await metric({ key: "errors", name: "Errors", query: { kind: "mean", event: "error_shown" }, direction: "decrease" });
});

afterAll(async () => {
  await service.stop();
});

const ref = (m: any) => ({ metric_id: m.id, key: m.key, kind: m.kind, name: m.name, higher_is_better: m.direction === "increase" });

describe("metrics", () => {
  test("create: 201 MetricDto, kind from the query, version 1, not certified", () => {
    expect(revenue).toEqual({
      id: expect.stringMatching(uuidPattern), project_id: project.id, key: "revenue", kind: "mean", name: "Revenue", direction: "increase",
      certified: false, monitor: false, version: 1, query: { kind: "mean", event: "purchase_completed", property: "price" },
      created_at: expect.stringMatching(isoPattern), archived_at: null, certified_at: null, certified_by: null, description: null, owner_id: null, unit: "EUR",
    });
  });

  test("bad queries 400, taken keys 409", async () => {
    expect((await owner.client.post(`${base()}/metrics`, { key: "x", name: "X", query: { kind: "ratio", event: "a" } })).status).toBe(400);
    expect((await owner.client.post(`${base()}/metrics`, { key: "x", name: "X", query: { kind: "proportion" } })).status).toBe(400);
    expect(await owner.client.post(`${base()}/metrics`, { key: "revenue", name: "Again", query: { kind: "proportion", event: "a" } })).toMatchObject({
      status: 409, body: { error: { code: "conflict", message: 'a metric with key "revenue" already exists' } },
    });
  });

  test("certify needs projects:write (members lack it); a new query is a new, uncertified version; archive", async () => {
    const m = await metric({ key: "signups", name: "Signups", query: { kind: "proportion", event: "signed_up" } });
    expect((await member.client.post(`${base()}/metrics/${m.id}/certify`)).status).toBe(403);
    const certified = await owner.client.post(`${base()}/metrics/${m.id}/certify`);
    expect(certified.body).toMatchObject({ certified: true, certified_by: owner.userId, certified_at: expect.stringMatching(isoPattern) });
    expect((await owner.client.post(`${base()}/metrics/${m.id}/certify`)).status).toBe(409);
    const renamed = await member.client.patch(`${base()}/metrics/${m.id}`, { name: "Sign-ups" });
    expect(renamed.body).toMatchObject({ name: "Sign-ups", version: 1, certified: true });
    const redefined = await member.client.patch(`${base()}/metrics/${m.id}`, { query: { kind: "mean", event: "signed_up" } });
    expect(redefined.body).toMatchObject({ kind: "mean", version: 2, certified: false, certified_at: null, certified_by: null });
    const archived = await member.client.post(`${base()}/metrics/${m.id}/archive`);
    expect(archived.body.archived_at).toMatch(isoPattern);
    expect((await owner.client.get(`${base()}/metrics`)).body.metrics.map((x: any) => x.key)).toEqual(["errors", "purchase", "revenue"]);
    expect((await owner.client.patch(`${base()}/metrics/${m.id}`, { name: "again" })).status).toBe(409);
  });
});

describe("experiments", () => {
  let flag: any;
  let experiment: any;

  test("create: a draft with defaults, metric refs resolved, the flag linked", async () => {
    flag = await multivariateFlag("checkout-test");
    const reply = await member.client.post(`${base()}/experiments`, {
      flag_id: flag.id, key: "checkout", name: "Checkout", primary_metric_id: conversion.id, secondary_metric_ids: [revenue.id],
      guardrails: [{ metric_id: errors.id, margin: 0.1 }], hypothesis: "A shorter checkout converts better", cuped: { enabled: true, pre_period_days: 14 },
    });
    expect(reply.status).toBe(201);
    experiment = reply.body;
    expect(experiment).toEqual({
      id: expect.stringMatching(uuidPattern), project_id: project.id, flag_id: flag.id, flag_key: "checkout-test", key: "checkout", name: "Checkout",
      environment: "production", status: "draft", method: "frequentist", alpha: 0.05, power: 0.8, attribution_window_hours: 336, control_variant: "control",
      exposure_event: "$feature_flag_called",
      guardrails: [{ metric_id: errors.id, margin: 0.1, margin_kind: "relative", key: "errors", kind: "mean", name: "Errors" }],
      secondary_metrics: [ref(revenue)], variants, created_at: expect.stringMatching(isoPattern), updated_at: experiment.created_at, created_by: member.userId,
      cuped: { enabled: true, pre_period_days: 14 }, decision: null, end_at: null, hypothesis: "A shorter checkout converts better", mde: null,
      primary_metric: ref(conversion), shipped_variant: null, start_at: null, winsor_pct: null,
    });
    expect((await owner.client.get(`${base()}/flags/${flag.id}`)).body.experiment_id).toBe(experiment.id);
  });

  test("create refuses boolean flags, unknown metrics, bad control variants, a flag already measured, a taken key", async () => {
    const boolean = (await owner.client.post(`${base()}/flags`, { key: "plain", name: "Plain" })).body;
    const other = await multivariateFlag("other-test");
    const cases: [Record<string, unknown>, number, string][] = [
      [{ flag_id: boolean.id, key: "e1", name: "E" }, 400, "flag plain is boolean: an experiment needs a multivariate flag (a control and at least one test variant)"],
      [{ flag_id: other.id, key: "e1", name: "E", primary_metric_id: crypto.randomUUID() }, 400, "is not a live metric of this project"],
      [{ flag_id: other.id, key: "e1", name: "E", control_variant: "nope" }, 400, 'control_variant "nope" is not a variant of flag other-test (control, test)'],
      [{ flag_id: other.id, key: "e1", name: "E", primary_metric_id: conversion.id, secondary_metric_ids: [conversion.id] }, 400, "the primary metric cannot also be a secondary metric"],
      [{ flag_id: other.id, key: "e1", name: "E", secondary_metric_ids: [errors.id], guardrails: [{ metric_id: errors.id, margin: 1 }] }, 400,
        "a guardrail metric cannot also be the primary or a secondary metric"],
      [{ flag_id: other.id, key: "e1", name: "E", environment: "qa" }, 400, 'environment "qa" is not one of the project\'s environments'],
      [{ flag_id: flag.id, key: "e1", name: "E" }, 409, 'flag checkout-test is already measured by experiment "checkout"'],
      [{ flag_id: other.id, key: "checkout", name: "E" }, 409, 'an experiment with key "checkout" already exists'],
    ];
    for (const [body, status, message] of cases) {
      const reply = await owner.client.post(`${base()}/experiments`, body);
      expect([reply.status, reply.body.error.message.includes(message) ? message : reply.body.error.message]).toEqual([status, message]);
    }
  });

  test("dry runs of create and launch change nothing", async () => {
    const other = (await owner.client.get(`${base()}/flags`)).body.flags.find((f: any) => f.key === "other-test");
    const preview = await owner.client.post(`${base()}/experiments?dry_run=true`, { flag_id: other.id, key: "preview", name: "Preview" });
    expect(preview.body).toMatchObject({ action: "experiment.create", dry_run: true, before: null, after: { key: "preview", status: "draft" } });
    const launch = await owner.client.post(`${base()}/experiments/${experiment.id}/launch?dry_run=true`);
    expect(launch.body).toMatchObject({ action: "experiment.launch", dry_run: true, before: { status: "draft" }, after: { status: "running" } });
    expect((await owner.client.get(`${base()}/experiments`)).body.experiments.map((e: any) => [e.key, e.status])).toEqual([["checkout", "draft"]]);
  });

  test("from draft: stop and ship are 409; launch in production needs flags.production; launch turns the flag on", async () => {
    expect(await owner.client.post(`${base()}/experiments/${experiment.id}/stop`)).toMatchObject({
      status: 409, body: { error: { code: "conflict", message: "cannot stop a draft experiment (only running ones)" } },
    });
    expect((await owner.client.post(`${base()}/experiments/${experiment.id}/ship`, { variant: "test" })).status).toBe(409);
    expect(await member.client.post(`${base()}/experiments/${experiment.id}/launch`)).toMatchObject({ status: 403, body: { error: { code: "missing_scope" } } });
    const launched = await owner.client.post(`${base()}/experiments/${experiment.id}/launch`, { reason: "go" });
    expect(launched.status).toBe(200);
    expect(launched.body).toEqual({ ...experiment, status: "running", start_at: expect.stringMatching(isoPattern), updated_at: expect.stringMatching(isoPattern) });
    experiment = launched.body;
    const flagNow = (await owner.client.get(`${base()}/flags/${flag.id}`)).body;
    expect(flagNow.environments.production).toMatchObject({ enabled: true, version: 2, updated_by: owner.userId });
    expect(service.nodes.get("eu")!.store.flags.snapshot(project.id, "production")!.flags.find((f) => f.key === "checkout-test")!.enabled).toBe(true);
  });

  test("while running, the flag's variants in that environment and the flag itself stay as launched; switching it off stays possible", async () => {
    const env = `${base()}/flags/${flag.id}/environments/production`;
    expect(await owner.client.patch(env, { variants: [{ key: "control", rollout_percentage: 90 }, { key: "test", rollout_percentage: 10 }] })).toMatchObject({
      status: 409, body: { error: { code: "conflict", message: 'the variants of flag checkout-test in production are measured by running experiment "checkout" (stop it first)' } },
    });
    expect((await owner.client.patch(`${base()}/flags/${flag.id}/environments/staging`, { variants: [{ key: "control", rollout_percentage: 90 }, { key: "test", rollout_percentage: 10 }] })).status).toBe(200);
    expect(await owner.client.delete(`${base()}/flags/${flag.id}`)).toMatchObject({
      status: 409, body: { error: { code: "conflict", message: 'flag checkout-test is measured by running experiment "checkout" (stop it first)' } },
    });
    expect((await owner.client.patch(env, { enabled: false })).body.environments.production.enabled).toBe(false);
    expect((await owner.client.patch(env, { enabled: true })).body.environments.production.enabled).toBe(true);
  });

  test("while running: launch again 409, delete 409, PATCH allowed", async () => {
    expect((await owner.client.post(`${base()}/experiments/${experiment.id}/launch`)).status).toBe(409);
    expect(await owner.client.delete(`${base()}/experiments/${experiment.id}`)).toMatchObject({
      status: 409, body: { error: { message: "cannot delete a running experiment (stop it first)" } },
    });
    const patched = await member.client.patch(`${base()}/experiments/${experiment.id}`, { winsor_pct: 0.99, method: "bayesian" });
    expect(patched.body).toMatchObject({ winsor_pct: 0.99, method: "bayesian", status: "running" });
    experiment = patched.body;
  });

  test("stop: end_at and the reason; then stop again 409", async () => {
    const stopped = await member.client.post(`${base()}/experiments/${experiment.id}/stop`, { reason: "enough data" });
    expect(stopped.body).toEqual({
      ...experiment, status: "stopped", end_at: expect.stringMatching(isoPattern), decision: { stop_reason: "enough data" }, updated_at: expect.stringMatching(isoPattern),
    });
    experiment = stopped.body;
    expect((await member.client.post(`${base()}/experiments/${experiment.id}/stop`)).status).toBe(409);
  });

  test("ship: needs experiments.ship (members lack it) and a variant of the experiment; serves it to everyone", async () => {
    expect(await member.client.post(`${base()}/experiments/${experiment.id}/ship`, { variant: "test" })).toMatchObject({ status: 403, body: { error: { code: "missing_scope" } } });
    expect(await owner.client.post(`${base()}/experiments/${experiment.id}/ship`, {})).toMatchObject({
      status: 400, body: { error: { message: "shipping needs the variant to serve (one of control, test)" } },
    });
    expect((await owner.client.post(`${base()}/experiments/${experiment.id}/ship`, { variant: "other" })).status).toBe(400);
    // Shipping the control needs no results (there is nothing to harm); test variants read them first.
    const shipped = await owner.client.post(`${base()}/experiments/${experiment.id}/ship`, { variant: "control", reason: "no lift" });
    expect(shipped.status).toBe(200);
    expect(shipped.body).toEqual({
      ...experiment, status: "shipped", shipped_variant: "control", updated_at: expect.stringMatching(isoPattern),
      decision: {
        stop_reason: "enough data", action: "ship", variant: "control", reason: "no lift", override_block: false, harmed_guardrails: [],
        decided_at: expect.stringMatching(isoPattern), decided_by: owner.userId,
      },
    });
    expect((await owner.client.get(`${base()}/flags/${flag.id}`)).body.environments.production).toMatchObject({
      enabled: true, variants: [{ key: "control", name: null, rollout_percentage: 100, payload: null }, { key: "test", name: null, rollout_percentage: 0, payload: null }],
    });
    expect((await owner.client.patch(`${base()}/experiments/${experiment.id}`, { name: "x" })).status).toBe(409);
    experiment = shipped.body;
  });

  test("delete from shipped archives; the flag can be measured again; archived answers 409 to everything", async () => {
    const archived = await owner.client.delete(`${base()}/experiments/${experiment.id}`);
    expect(archived.body).toMatchObject({ status: "archived", id: experiment.id });
    for (const [method, path, body] of [
      ["PATCH", "", { name: "x" }], ["POST", "/launch", {}], ["POST", "/stop", {}], ["POST", "/ship", { variant: "test" }], ["DELETE", "", undefined],
    ] as const) {
      const reply = await owner.client.request(method, `${base()}/experiments/${experiment.id}${path}`, body);
      expect([method, path, reply.status]).toEqual([method, path, 409]);
    }
    const again = await owner.client.post(`${base()}/experiments`, { flag_id: flag.id, key: "checkout-2", name: "Again" });
    expect(again.status).toBe(201);
  });

  test("results of a draft are 409; unknown experiments 404", async () => {
    const draft = (await owner.client.get(`${base()}/experiments`)).body.experiments.find((e: any) => e.key === "checkout-2");
    expect(await owner.client.get(`${base()}/experiments/${draft.id}/results`)).toMatchObject({
      status: 409, body: { error: { code: "conflict", message: "the experiment has not been launched: no results yet" } },
    });
    expect((await owner.client.get(`${base()}/experiments/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await owner.client.get(`${base()}/experiments/not-a-uuid`)).status).toBe(404);
  });
});

describe("/v1 experiments: same bodies, scopes", () => {
  test("a flags:write + experiments:write token creates and launches in staging without flags.production; production needs it", async () => {
    const flag = await multivariateFlag("v1-test");
    const writer = await createToken(owner, ["experiments:write", "flags:read"]);
    const created = await v1(service, writer.secret, "POST", `/v1/projects/${project.id}/experiments`, {
      flag_id: flag.id, key: "v1-staging", name: "Staging", environment: "staging", primary_metric_id: conversion.id,
    });
    expect(created).toMatchObject({ status: 201, body: { environment: "staging", status: "draft", primary_metric: ref(conversion) } });
    const launched = await v1(service, writer.secret, "POST", `/v1/projects/${project.id}/experiments/${created.body.id}/launch`);
    expect(launched).toMatchObject({ status: 200, body: { status: "running" } });
    const got = await v1(service, writer.secret, "GET", `/v1/projects/${project.id}/experiments/${created.body.id}`);
    expect(got.body).toEqual(launched.body);
    const reader = await createToken(owner, ["flags:read"]);
    expect((await v1(service, reader.secret, "GET", `/v1/projects/${project.id}/experiments`)).status).toBe(403);
    const shipper = await createToken(owner, ["experiments:write"]);
    expect((await v1(service, shipper.secret, "POST", `/v1/projects/${project.id}/experiments/${created.body.id}/ship`, { variant: "control" })).status).toBe(403);
    const production = await v1(service, writer.secret, "POST", `/v1/projects/${project.id}/experiments`, {
      flag_id: (await multivariateFlag("v1-prod")).id, key: "v1-prod", name: "Prod", primary_metric_id: conversion.id,
    });
    expect((await v1(service, writer.secret, "POST", `/v1/projects/${project.id}/experiments/${production.body.id}/launch`)).status).toBe(403);
    const gated = await createToken(owner, ["experiments:write", "flags.production"]);
    expect((await v1(service, gated.secret, "POST", `/v1/projects/${project.id}/experiments/${production.body.id}/launch?dry_run=true`)).body).toMatchObject({ dry_run: true, action: "experiment.launch" });
    expect((await owner.client.get("/openapi.json")).body.paths[`/v1/projects/{project_id}/experiments`]).toBeUndefined();
  });

  test("launch without a primary metric is 400", async () => {
    const draft = await owner.client.post(`${base()}/experiments`, { flag_id: (await multivariateFlag("no-metric")).id, key: "no-metric", name: "No metric" });
    expect(await owner.client.post(`${base()}/experiments/${draft.body.id}/launch`)).toMatchObject({
      status: 400, body: { error: { code: "validation", message: "launching needs a primary metric (primary_metric_id)" } },
    });
  });
});

describe("plan", () => {
  test("a proportion metric: sample size per variant from the formula, days from daily units", async () => {
    const reply = await owner.client.post(`${base()}/experiments/plan`, { metric: { kind: "proportion", baseline_rate: 0.1 }, mde: 0.1, daily_units: 1000 });
    expect(reply.status).toBe(200);
    // n = (z_0.975 + z_0.8)^2 (p1 q1 + p2 q2) / delta^2 with p1 = 0.1, p2 = 0.11.
    const z = 1.959963984540054 + 0.8416212335729143;
    const perArm = Math.ceil((z * z * (0.1 * 0.9 + 0.11 * 0.89)) / 0.01 ** 2);
    expect(reply.body.plan).toMatchObject({ metric_kind: "proportion", units_per_variant: perArm, total_units: 2 * perArm, days: Math.ceil((2 * perArm) / 1000) });
    expect(reply.body.mde_at_control_units).toBeNull();
  });

  test("inputs the statistics cannot use are 400; v1 answers the same", async () => {
    expect(await owner.client.post(`${base()}/experiments/plan`, { metric: { kind: "proportion", baseline_rate: 1.2 }, mde: 0.1 })).toMatchObject({
      status: 400, body: { error: { code: "validation" } },
    });
    const token = await createToken(owner, ["experiments:read"]);
    const body = { metric: { kind: "mean", baseline_mean: 50, standard_deviation: 20 }, mde: 5, mde_kind: "absolute", variants: 0, control_units: 1000 };
    const consoleReply = await owner.client.post(`${base()}/experiments/plan`, body);
    expect(await v1(service, token.secret, "POST", `/v1/projects/${project.id}/experiments/plan`, body)).toMatchObject({ status: 200, body: consoleReply.body });
    expect(consoleReply.body.mde_at_control_units).toMatchObject({ control_units: 1000 });
  });
});
