// POST /region/eu/experiments/stats over real HTTP on a hand-worked dataset: units are persons
// (a merge applied), first exposure decides the variant, persons seen in two variants are left
// out, exposures before start_at and events outside a unit's window are ignored. Every
// comparison is checked against engine/stats called here on the hand-counted arms, so the
// region's aggregation is checked independently of its own code. Also: winsorisation, CUPED,
// the Bayesian method, sample-ratio mismatch, guardrails blocking, too few units, end_at,
// scopes, validation paths and the shared concurrency gate.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp } from "../helpers/accounts.ts";
import { bearer, call } from "../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../ingest/helpers.ts";
import {
  bayesMeans, bayesProportions, checkGuardrail, compareMeans, compareProportions, cupedFromUnits, meanArmFromValues, sampleRatioMismatch,
  statsVersion, winsorizeArms,
} from "../../engine/stats/index.ts";
import { concurrentQueriesPerProjectMax } from "../../server/region/query-service.ts";
import { metricPasses, unitValuesPerPassMax } from "../../server/region/experiments/unit-values.ts";
import type { StatsMetricSpec } from "../../server/region/experiments/stats-request.ts";

let service: TestService;
let projectId: string;
let statsToken: string;
let patSecret: string;

/** T(m): four days ago at 10:00 UTC plus m minutes (every window below ends before now). */
const base = Date.parse(`${new Date(Date.now() - 4 * 86_400_000).toISOString().slice(0, 10)}T10:00:00Z`);
const T = (minutes: number) => base + minutes * 60_000;
const iso = (epochMs: number) => new Date(epochMs).toISOString();

const event = (name: string, distinctId: string, minutes: number, properties: Record<string, unknown> = {}, extra: NativeEvent = {}) =>
  nativeEvent({ event: name, distinct_id: distinctId, timestamp: rfc3339(T(minutes)), properties, ...extra });
const exposure = (distinctId: string, minutes: number, variant: string, flag = "pricing") =>
  event("$feature_flag_called", distinctId, minutes, { $feature_flag: flag, $feature_flag_response: variant });

const stats = (body: unknown, token = statsToken) => call(service.url, "POST", "/region/eu/experiments/stats", { headers: bearer(token), body });

/** Relative closeness for numbers anywhere in two JSON values (sums in another order round differently). */
function expectClose(actual: unknown, expected: unknown, path = "$"): void {
  if (typeof expected === "number" && typeof actual === "number") {
    if (Math.abs(actual - expected) > 1e-9 * Math.max(1, Math.abs(expected))) throw new Error(`${path}: ${actual} is not ${expected}`);
  } else if (expected && typeof expected === "object") {
    expect(actual !== null && typeof actual === "object", path).toBe(true);
    expect(Object.keys(actual as object).sort(), path).toEqual(Object.keys(expected).sort());
    for (const [key, value] of Object.entries(expected)) expectClose((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
  } else expect(actual, path).toEqual(expected);
}

// c9 was exposed as anon-c9 and bought as user-c9: it converts only because the two ids joined.
const control = { units: 10, conversions: 3 };
const treatment = { units: 10, conversions: 6 };
const revenueControl = [15, 20, 0, 0, 0, 0, 0, 0, 0, 30];
const revenueTest = [40, 10, 20, 30, 50, 60, 0, 0, 0, 0];
const errorsControl = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
const errorsTest = Array<number>(10).fill(3);

const pricing = (extra: Record<string, unknown> = {}) => ({
  flag_key: "pricing",
  variants: ["control", "test"],
  control_variant: "control",
  start_at: iso(T(-60)),
  end_at: null,
  attribution_window_hours: 48,
  method: "frequentist",
  alpha: 0.05,
  metrics: [
    { key: "purchase", kind: "proportion", event: "purchase_completed", role: "primary", higher_is_better: true },
    { key: "revenue", kind: "mean", event: "purchase_completed", property: "price", role: "secondary", higher_is_better: true },
  ],
  ...extra,
});

const errorsGuardrail = { key: "errors", kind: "mean", event: "error_shown", property: null, role: "guardrail", higher_is_better: false, margin: 0.05, margin_kind: "relative" };

beforeAll(async () => {
  service = await startTestService();
  const owner = await signUp(service, "Experiment owner");
  const created = await createProject(owner, "Experiments", "eu", "UTC");
  projectId = created.project.id;
  const key = created.public_keys.find((k: { environment: string }) => k.environment === "production").key;
  patSecret = (await createToken(owner, ["query:read", "experiments:read"])).secret;
  statsToken = await regionTokenFor(service, patSecret, projectId, ["experiments:read"]);
  const send = (events: NativeEvent[]) => sendAccepted(service.url, key, events);
  const events = service.nodes.get("eu")!.events;

  // user-c9 exists before the experiment; its anonymous id anon-c9 is exposed, then joins it.
  await send([event("page_viewed", "user-c9", -120)]);
  await send([
    ...Array.from({ length: 9 }, (_, i) => exposure(`c${i}`, i, "control")),
    exposure("anon-c9", 9, "control"),
    ...Array.from({ length: 10 }, (_, i) => exposure(`t${i}`, i, "test")),
    exposure("early", -90, "test"), // before start_at: not a unit
    exposure("c5", -75, "test"), // before start_at: c5 stays a control unit, not a multiple exposure
    exposure("both", 20, "control"),
    exposure("both", 21, "test"), // two variants: left out
    exposure("o1", 3, "test", "other-flag"),
    exposure("u1", 4, "test-2"), // not one of the variants
    event("flag_seen", "w1", 4, { $feature_flag: "pricing", $feature_flag_response: "test" }), // not the exposure event
  ]);
  await events.flush();
  await send([event("logged_in", "user-c9", 30, {}, { anon_id: "anon-c9" })]);
  await send([
    event("purchase_completed", "c0", 60, { price: 10 }),
    event("purchase_completed", "c0", 61, { price: 5 }),
    event("purchase_completed", "c1", 61, { price: 20 }),
    event("purchase_completed", "user-c9", 69, { price: 30 }),
    ...[40, 10, 20, 30, 50, 60].map((price, i) => event("purchase_completed", `t${i}`, 60 + i, { price })),
    event("purchase_completed", "both", 80, { price: 100 }),
    event("purchase_completed", "c3", 3 + 49 * 60, { price: 1000 }), // past the 48 h window
    event("purchase_completed", "c4", -26, { price: 500 }), // before c4's exposure
  ]);
  await events.seal();
  await send([
    ...Array.from({ length: 5 }, (_, i) => event("error_shown", `c${i}`, 100 + i)),
    ...Array.from({ length: 10 }, (_, i) => [0, 1, 2].map((k) => event("error_shown", `t${i}`, 100 + i + k))).flat(),
  ]);

  // Sample ratio: 20 control units, 2 test units.
  await send(Array.from({ length: 22 }, (_, i) => exposure(`l${i}`, 300 + i, i < 20 ? "control" : "test", "lopsided")));

  // CUPED: spend 10 h before exposure predicts spend after it.
  const noise = [0, 1, -1, 2, -2, 0, 1, -1, 2, -2];
  await send(
    ["k", "m"].flatMap((prefix, arm) =>
      Array.from({ length: 10 }, (_, i) => [
        exposure(`${prefix}${i}`, 400 + i, arm === 0 ? "control" : "test", "checkout"),
        event("spent", `${prefix}${i}`, 400 + i - 600, { amount: i + 1 }),
        event("spent", `${prefix}${i}`, 400 + i + 60, { amount: 2 * (i + 1) + noise[i]! + 3 * arm }),
      ]).flat(),
    ),
  );
  await send([event("spent", "k0", 470)]); // no amount: adds nothing
});

afterAll(async () => {
  await service.close();
});

describe("POST /experiments/stats", () => {
  test("units, rates, means and comparisons match the hand-counted arms", async () => {
    const reply = await stats(pricing());
    expect(reply.status).toBe(200);
    const body = reply.body;
    expect(body.stats_version).toBe(statsVersion);
    expect([body.method, body.alpha, body.blocked]).toEqual(["frequentist", 0.05, false]);
    expect(Date.parse(body.data_through)).toBeLessThanOrEqual(Date.now());
    expect(body.exposures).toEqual({ units_per_variant: { control: 10, test: 10 }, multiple_exposures: 1, total: 20 });
    expect(body.srm).toEqual({ variants: ["control", "test"], ...sampleRatioMismatch([10, 10]) });

    const purchase = body.metrics.purchase;
    expect(purchase).toEqual({
      kind: "proportion", role: "primary", event: "purchase_completed", property: null, higher_is_better: true,
      variants: { control: { units: 10, conversions: 3, value: 0.3 }, test: { units: 10, conversions: 6, value: 0.6 } },
      winsor: null, cuped: null,
      comparisons: { test: compareProportions(control, treatment, { alpha: 0.05, comparisons: 1 }) },
      reasons: {},
    });

    const revenue = body.metrics.revenue;
    const [armC, armT] = [meanArmFromValues(revenueControl), meanArmFromValues(revenueTest)];
    expectClose(revenue, {
      kind: "mean", role: "secondary", event: "purchase_completed", property: "price", higher_is_better: true,
      variants: {
        control: { units: 10, value: 6.5, variance: armC.variance, adjusted_value: null, adjusted_variance: null },
        test: { units: 10, value: 21, variance: armT.variance, adjusted_value: null, adjusted_variance: null },
      },
      winsor: null, cuped: null,
      comparisons: { test: compareMeans(armC, armT, { alpha: 0.05, comparisons: 1 }) },
      reasons: {},
    });
  });

  test("winsorisation caps the pooled upper tail before the comparison", async () => {
    const reply = await stats(pricing({ winsor_pct: 0.9 }));
    const capped = winsorizeArms([revenueControl, revenueTest], 0.9);
    const revenue = reply.body.metrics.revenue;
    expectClose(revenue.winsor, { winsor_pct: 0.9, cap: capped.cap, capped_units: capped.capped_units });
    expect(capped.capped_units).toBe(2);
    expectClose(revenue.comparisons.test, compareMeans(meanArmFromValues(capped.arms[0]!), meanArmFromValues(capped.arms[1]!), { alpha: 0.05, comparisons: 1 }));
    // Proportions are never capped.
    expect(reply.body.metrics.purchase.winsor).toBeNull();
  });

  test("bayesian method: posterior comparisons of the same arms", async () => {
    const reply = await stats(pricing({ method: "bayesian", alpha: 0.1 }));
    expect(reply.status).toBe(200);
    expect(reply.body.metrics.purchase.comparisons.test).toEqual(bayesProportions(control, treatment, { alpha: 0.1, higher_is_better: true }));
    expectClose(
      reply.body.metrics.revenue.comparisons.test,
      bayesMeans(meanArmFromValues(revenueControl), meanArmFromValues(revenueTest), { alpha: 0.1, higher_is_better: true }),
    );
  });

  test("a harmed guardrail blocks shipping", async () => {
    const reply = await stats(pricing({ metrics: [errorsGuardrail] }));
    expect(reply.status).toBe(200);
    const errors = reply.body.metrics.errors;
    const comparison = compareMeans(meanArmFromValues(errorsControl), meanArmFromValues(errorsTest), { alpha: 0.05, comparisons: 1 });
    expectClose(errors.comparisons.test, comparison);
    const verdict = checkGuardrail({ margin: 0.05, margin_kind: "relative", higher_is_better: false }, comparison);
    expect(verdict.status).toBe("harmed");
    expectClose(errors.guardrail, { test: verdict });
    expect(reply.body.blocked).toBe(true);
  });

  test("a variant without units is not compared; Bonferroni splits alpha over every treatment", async () => {
    const reply = await stats(pricing({ variants: ["control", "test", "empty"] }));
    expect(reply.status).toBe(200);
    expect(reply.body.exposures.units_per_variant).toEqual({ control: 10, test: 10, empty: 0 });
    const purchase = reply.body.metrics.purchase;
    expect(purchase.comparisons).toEqual({ test: compareProportions(control, treatment, { alpha: 0.05, comparisons: 2 }), empty: null });
    expect(purchase.reasons).toEqual({
      empty: { code: "not_enough_units", message: "empty has 0 units and control 10 units; a proportion comparison needs at least 1 unit per variant" },
    });
    expect(purchase.variants.empty).toEqual({ units: 0, conversions: 0, value: null });
    expect(reply.body.metrics.revenue.reasons.empty.code).toBe("not_enough_units");
    expect(reply.body.srm).toEqual({ variants: ["control", "test", "empty"], ...sampleRatioMismatch([10, 10, 0]) });
  });

  test("end_at bounds exposures and windows, and is data_through", async () => {
    const endAt = iso(T(5) + 30_000);
    const reply = await stats(pricing({ end_at: endAt }));
    expect(reply.body.data_through).toBe(endAt);
    expect(reply.body.exposures).toEqual({ units_per_variant: { control: 6, test: 6 }, multiple_exposures: 0, total: 12 });
    expect(reply.body.metrics.purchase.variants).toEqual({ control: { units: 6, conversions: 0, value: 0 }, test: { units: 6, conversions: 0, value: 0 } });
  });

  test("sample-ratio mismatch against an equal or a configured split", async () => {
    const lopsided = (split: Record<string, number> | null) =>
      stats(pricing({ flag_key: "lopsided", expected_split: split, metrics: [{ key: "views", kind: "proportion", event: "page_viewed", role: "primary" }] }));
    const equal = await lopsided(null);
    expect(equal.body.srm).toEqual({ variants: ["control", "test"], ...sampleRatioMismatch([20, 2]) });
    expect(equal.body.srm.srm_detected).toBe(true);
    const configured = await lopsided({ control: 90, test: 10 });
    expect(configured.body.srm).toEqual({ variants: ["control", "test"], ...sampleRatioMismatch([20, 2], [90, 10]) });
    expect(configured.body.srm.srm_detected).toBe(false);
    // A variant configured at 0 % is left out of the test.
    const zero = await stats(pricing({ flag_key: "lopsided", variants: ["control", "test", "off"], expected_split: { control: 90, test: 10, off: 0 } }));
    expect(zero.body.srm.variants).toEqual(["control", "test"]);
  });

  test("CUPED uses the pre-period spend as covariate and reduces the variance", async () => {
    const noise = [0, 1, -1, 2, -2, 0, 1, -1, 2, -2];
    const pre = Array.from({ length: 10 }, (_, i) => i + 1);
    const post = (arm: number) => pre.map((x, i) => 2 * x + noise[i]! + 3 * arm);
    const reply = await stats(pricing({
      flag_key: "checkout",
      cuped: { enabled: true, pre_period_days: 1 },
      metrics: [
        { key: "spend", kind: "mean", event: "spent", property: "amount", role: "primary" },
        { key: "spent_any", kind: "proportion", event: "spent", role: "secondary" },
      ],
    }));
    expect(reply.status).toBe(200);
    const expected = cupedFromUnits([{ metric: post(0), covariate: pre }, { metric: post(1), covariate: pre }]);
    const spend = reply.body.metrics.spend;
    expectClose(spend.cuped, { pre_period_days: 1, theta: expected.theta, covariate_mean: expected.covariate_mean, variance_reduction: expected.variance_reduction });
    // Pooled over both arms, the treatment's shift is variance the covariate cannot explain.
    expect(spend.cuped.variance_reduction).toBeGreaterThan(0.8);
    expectClose(spend.variants.control.adjusted_value, expected.arms[0]!.mean);
    expectClose(spend.comparisons.test, compareMeans(expected.arms[0]!, expected.arms[1]!, { alpha: 0.05, comparisons: 1 }));
    const unadjusted = compareMeans(meanArmFromValues(post(0)), meanArmFromValues(post(1)), { alpha: 0.05, comparisons: 1 });
    expect(spend.comparisons.test.standard_error).toBeLessThan(unadjusted.standard_error / 2);
    expectClose(spend.variants.test.value, meanArmFromValues(post(1)).mean);
    expect(reply.body.metrics.spent_any.cuped).toBeNull();
    expect(reply.body.metrics.spent_any.variants.test).toEqual({ units: 10, conversions: 10, value: 1 });
  });

  test("scope, token and concurrency", async () => {
    const queryOnly = await stats(pricing(), await regionTokenFor(service, patSecret, projectId, ["query:read"]));
    expect([queryOnly.status, queryOnly.body]).toEqual([403, { error: { code: "forbidden", message: "region token lacks scope experiments:read" } }]);
    const missing = await call(service.url, "POST", "/region/eu/experiments/stats", { body: pricing() });
    expect([missing.status, missing.body.error.code]).toEqual([401, "unauthorized"]);
    const gate = service.queries.get("eu")!.gate;
    const held = Array.from({ length: concurrentQueriesPerProjectMax }, () => gate.tryAcquire(projectId)!);
    try {
      const busy = await stats(pricing());
      expect([busy.status, busy.body.error.code]).toEqual([429, "too_many_concurrent_queries"]);
    } finally {
      for (const release of held) release();
    }
  });

  test("metrics whose per-unit values pass the bound of one pass are read in further passes", () => {
    const metric = (key: string, kind: "mean" | "proportion"): StatsMetricSpec => ({ key, kind, event: "e", property: null, role: "secondary", higher_is_better: true, guardrail: null });
    const metrics = [metric("a", "mean"), metric("b", "proportion"), metric("c", "mean")];
    const keys = (passes: StatsMetricSpec[][]) => passes.map((pass) => pass.map((m) => m.key));
    // Under CUPED a mean holds two values per unit, a proportion one.
    expect(keys(metricPasses(metrics, unitValuesPerPassMax / 2, { windowMs: 1, end: 1, prePeriodDays: 7 }))).toEqual([["a"], ["b"], ["c"]]);
    expect(keys(metricPasses(metrics, unitValuesPerPassMax / 3, { windowMs: 1, end: 1, prePeriodDays: null }))).toEqual([["a", "b", "c"]]);
    expect(keys(metricPasses(metrics, unitValuesPerPassMax * 2, { windowMs: 1, end: 1, prePeriodDays: null }))).toEqual([["a"], ["b"], ["c"]]);
  });

  test.each([
    [{ flag_key: undefined }, "body /flag_key: Expected required property"],
    [{ variants: ["control"] }, "body /variants: Expected array length to be greater or equal to 2"],
    [{ variants: ["control", "control"] }, "body /variants: Expected array elements to be unique"],
    [{ control_variant: "baseline" }, "body /control_variant: must be one of the variants (control, test)"],
    [{ start_at: "yesterday-ish" }, "body /start_at: Expected string length greater or equal to 20"],
    [{ start_at: "2026-02-30T00:00:00Z" }, "body /start_at: must be an RFC 3339 date-time (2026-11-01T00:00:00Z)"],
    [{ end_at: iso(T(-120)) }, "body /end_at: must be after start_at"],
    [{ method: "bootstrap" }, "body /method: Expected union value"],
    [{ expected_split: { control: 50 } }, "body /expected_split: has no share for variant test"],
    [{ expected_split: { control: 50, test: 50, other: 1 } }, "body /expected_split/other: is not one of the variants"],
    [{ metrics: [{ key: "p", kind: "proportion", event: "e", property: "price", role: "primary" }] }, "body /metrics/0/property: a proportion metric takes no property (it counts whether the unit did the event)"],
    [{ metrics: [{ key: "g", kind: "mean", event: "e", role: "guardrail" }] }, "body /metrics/0/margin: a guardrail metric needs a margin (the harm tolerated, 0 or more)"],
    [{ metrics: [{ key: "s", kind: "mean", event: "e", role: "secondary", margin: 0.1 }] }, "body /metrics/0/margin: only guardrail metrics take a margin"],
    [{ metrics: [{ key: "a", kind: "mean", event: "e", role: "primary" }, { key: "a", kind: "mean", event: "f", role: "secondary" }] }, "body /metrics/1/key: metric a is listed twice"],
    [{ metrics: [] }, "body /metrics: Expected array length to be greater or equal to 1"],
  ])("400 bad_request with the path: %j", async (change, message) => {
    const reply = await stats(pricing(change));
    expect([reply.status, reply.body]).toEqual([400, { error: { code: "bad_request", message } }]);
  });
});
