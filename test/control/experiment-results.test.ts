// Experiment results end to end (spec 1: GET …/experiments/{id}/results, ship blocked by a
// harmed guardrail; docs/experiments.md): a launched experiment, exposures and events sent
// through ingest, results computed by the region and kept 5 minutes unless refresh, and a
// ship refused with 409 experiment_blocked until override_block.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { nativeEvent, sendAccepted, startDedicatedService, type DedicatedService } from "../ingest/helpers.ts";
import { compareProportions } from "../../engine/stats/index.ts";
import { isoPattern } from "../helpers/client.ts";

let dedicated: DedicatedService;
let experiment: any;
const personsPerVariant = 20;

beforeAll(async () => {
  dedicated = await startDedicatedService();
  const { owner, project } = dedicated;
  const base = `/app/projects/${project.id}`;
  const flag = (await owner.client.post(`${base}/flags`, {
    key: "checkout", name: "Checkout", kind: "multivariate", variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }],
  })).body;
  const purchase = (await owner.client.post(`${base}/metrics`, { key: "purchase", name: "Purchase", query: { kind: "proportion", event: "purchase_completed" } })).body;
  const errors = (await owner.client.post(`${base}/metrics`, { key: "errors", name: "Errors", query: { kind: "mean", event: "error_shown" }, direction: "decrease" })).body;
  const created = await owner.client.post(`${base}/experiments`, {
    flag_id: flag.id, key: "checkout", name: "Checkout", primary_metric_id: purchase.id, guardrails: [{ metric_id: errors.id, margin: 0.5, margin_kind: "absolute" }],
  });
  expect(created.status).toBe(201);
  const launched = await owner.client.post(`${base}/experiments/${created.body.id}/launch`);
  expect(launched.status).toBe(200);
  experiment = launched.body;
  // Exposures after the launch; control: 5 of 20 purchase and 0 or 1 errors; test: 12 of 20 purchase and 4 or 5 errors.
  const production = dedicated.publicKeys.find((key: any) => key.environment === "production").key;
  const at = (offsetMs: number) => new Date(Date.parse(experiment.start_at) + offsetMs).toISOString();
  const events = [];
  for (const [variant, purchases, errorBase] of [["control", 5, 0], ["test", 12, 4]] as const) {
    for (let i = 0; i < personsPerVariant; i++) {
      const distinct_id = `${variant}-${i}`;
      events.push(nativeEvent({ distinct_id, event: "$feature_flag_called", timestamp: at(100), properties: { $feature_flag: "checkout", $feature_flag_response: variant } }));
      if (i < purchases) events.push(nativeEvent({ distinct_id, event: "purchase_completed", timestamp: at(200) }));
      for (let e = 0; e < errorBase + (i % 2); e++) events.push(nativeEvent({ distinct_id, event: "error_shown", timestamp: at(300 + e) }));
    }
  }
  await sendAccepted(dedicated.service.url, production, events);
});

afterAll(async () => {
  await dedicated.dispose();
});

const path = () => `/app/projects/${dedicated.project.id}/experiments/${experiment.id}`;

test("results: the region's statistics on the exposed persons, kept until refresh", async () => {
  const reply = await dedicated.owner.client.get(`${path()}/results`);
  expect(reply.status).toBe(200);
  const results = reply.body;
  // Copies first: toMatchObject below writes its matchers into the object it checks.
  const kept = structuredClone(results);
  expect(structuredClone(results)).toMatchObject({
    experiment_id: experiment.id,
    analysis: { method: "frequentist", alpha: 0.05, control_variant: "control", variants: experiment.variants, start_at: experiment.start_at, end_at: null },
    stats_version: 1,
    metrics: { purchase: { key: "purchase", kind: "proportion", name: "Purchase", higher_is_better: true }, errors: { key: "errors", kind: "mean", higher_is_better: false } },
    computed_at: expect.stringMatching(isoPattern),
    data_through: expect.stringMatching(isoPattern),
  });
  expect(results.stats.exposures).toEqual({ units_per_variant: { control: 20, test: 20 }, multiple_exposures: 0, total: 40 });
  expect(results.stats.metrics.purchase.variants).toEqual({ control: { units: 20, conversions: 5, value: 0.25 }, test: { units: 20, conversions: 12, value: 0.6 } });
  expect(results.stats.metrics.purchase.comparisons.test).toEqual(compareProportions({ units: 20, conversions: 5 }, { units: 20, conversions: 12 }, { alpha: 0.05, comparisons: 1 }));
  expect(results.stats.metrics.errors.guardrail.test.status).toBe("harmed");
  expect(results.stats.blocked).toBe(true);
  // Kept: the same answer (same computed_at) until refresh.
  expect((await dedicated.owner.client.get(`${path()}/results`)).body).toEqual(kept);
  const refreshed = (await dedicated.owner.client.get(`${path()}/results?refresh=true`)).body;
  expect(refreshed.computed_at > kept.computed_at).toBe(true);
  expect(refreshed.stats.exposures).toEqual(results.stats.exposures);
});

test("ship past a harmed guardrail: 409 experiment_blocked (dry run too); override_block ships and records it", async () => {
  const blocked = await dedicated.owner.client.post(`${path()}/ship`, { variant: "test" });
  expect(blocked).toMatchObject({
    status: 409, body: { error: { code: "experiment_blocked", message: "guardrail metrics significantly harmed: errors (ship with override_block to ship anyway)" } },
  });
  expect((await dedicated.owner.client.post(`${path()}/ship?dry_run=true`, { variant: "test" })).status).toBe(409);
  const shipped = await dedicated.owner.client.post(`${path()}/ship`, { variant: "test", override_block: true, reason: "revenue matters more" });
  expect(shipped.status).toBe(200);
  expect(shipped.body).toMatchObject({
    status: "shipped", shipped_variant: "test",
    decision: { action: "ship", variant: "test", override_block: true, harmed_guardrails: ["errors"], reason: "revenue matters more", decided_by: dedicated.owner.userId },
  });
});
