// The spend cap's path to capture, end to end over real HTTP: a cap the projected usage passes
// makes the control plane push a keep ratio to the org's project; capture then keeps a
// weighted sample (answers list `events` in quota_limited, kept events carry their sample
// rate), and a trends total weighted by 1/$sample_rate estimates what was sent.
//
// The error bound: each of N events is kept independently with probability k (a hash of its
// uuid), and the estimate is (kept) / k, so its standard error is sqrt(N (1 - k) / k); the test
// requires the estimate within 5 standard errors of N (for N = 20,000 and k near 0.25: about
// ±1,230, i.e. ±6%; a correct implementation fails this with probability under 1e-6).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { bearer, call } from "../../helpers/client.ts";
import { nativeBody, nativeEvent, ok, postIngest, type NativeEvent } from "../../ingest/helpers.ts";
import { keptBySampling } from "../../../server/ingest/event-effects.ts";
import { keepRatioWithin, keepRatioStep } from "../../../server/control/billing/keep-ratio.ts";
import { paidPlanTerms } from "../../../server/control/billing/plans.ts";
import type { FakeStripeApi } from "../../helpers/fake-stripe-api.ts";
import { startStripeForService, stripeServiceEnv, subscribe } from "../../helpers/stripe-provider-fixture.ts";

const hourMs = 3_600_000;
/** The keep ratio the warm-up is sized for (the statistical bound below is worked out near it). */
const keepRatioAimed = 0.245;
/** Events sent while sampling. */
const sampledEvents = 20_000;
const batchSize = 1_000;
const standardErrorsAllowed = 5;

let stripe: FakeStripeApi;
let service: TestService;
/**
 * Events before the cap, sized from the subscription's period (a calendar month from Stripe,
 * 28 to 31 days): W stored with an hour elapsed project W per hour over the hours left, h;
 * under a cap at the starter price, k (W h) + W = 1,000,000 included, so W = 1M / (k h + 1)
 * gives k = keepRatioAimed whatever the month (about 5,600 events for 30 days).
 */
let warmupEvents: number;
let owner: SignedUpUser;
let projectId: string;
let apiKey: string;
let periodStartMs: number;
let periodEndMs: number;

/** A seeded generator (mulberry32). */
function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}
const random = seeded(42);
const hex = (digits: number) => Array.from({ length: digits }, () => Math.floor(random() * 16).toString(16)).join("");
/** A UUIDv7 (its time field fixed in 2024, its random bits seeded), so the sample kept is the same every run. */
const seededUuid = () => `0190${hex(4)}-${hex(4)}-7${hex(3)}-8${hex(3)}-${hex(12)}`;

async function sendAll(events: NativeEvent[], quotaLimited: string[]): Promise<void> {
  for (let start = 0; start < events.length; start += batchSize) {
    const batch = events.slice(start, start + batchSize);
    const reply = await postIngest(service.url, nativeBody(apiKey, batch));
    expect([reply.status, reply.body]).toEqual([200, ok(batch.length, [], quotaLimited)]);
  }
}

beforeAll(async () => {
  stripe = startStripeForService();
  service = await startTestService(stripeServiceEnv(stripe));
  owner = await signUp(service, "Capped owner");
  const created = await createProject(owner, "Capped");
  projectId = created.project.id;
  apiKey = created.public_keys[0].key;
  // A starter subscription paid for an hour ago (Stripe's times are whole seconds): its period is Stripe's, a calendar month.
  const paidAtSeconds = Math.floor((Date.now() - hourMs) / 1000);
  const subscription = await subscribe(service.url, stripe, owner, owner.orgId, "starter", paidAtSeconds);
  const item = (subscription.items as { data: { current_period_start: number; current_period_end: number }[] }).data[0]!;
  periodStartMs = item.current_period_start * 1000;
  periodEndMs = item.current_period_end * 1000;
  expect(periodStartMs).toBe(paidAtSeconds * 1000);
  warmupEvents = Math.round(paidPlanTerms.starter.events.included / (keepRatioAimed * ((periodEndMs - periodStartMs) / hourMs - 1) + 1));
});
afterAll(async () => {
  await service.close();
  await stripe.stop();
});

describe("spend cap -> sampling", () => {
  let keepRatio: number;
  let sent: NativeEvent[];

  test("under the cap every event is stored; a cap at the plan price makes the projected usage pass it, and a keep ratio reaches capture", async () => {
    await sendAll(Array.from({ length: warmupEvents }, () => nativeEvent({ uuid: seededUuid(), event: "warmup" })), []);
    const capped = await owner.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 2900 });
    expect({ status: capped.status, body: capped.body }).toEqual({ status: 200, body: { spend_cap_minor: 2900, previous_spend_cap_minor: 0 } });

    const overview = (await owner.client.get(`/app/orgs/${owner.orgId}/billing`)).body;
    keepRatio = overview.ingest.keep_ratio;
    // The ratio the formula gives for the usage read, between the earliest and the latest instant it could have been read at.
    const bound = (nowMs: number) => keepRatioWithin(paidPlanTerms.starter, 2900, {
      stored: { events: warmupEvents, replayRecordings: 0 },
      arriving: { events: (warmupEvents / Math.max(nowMs - periodStartMs, hourMs)) * (periodEndMs - nowMs), replayRecordings: 0 },
    });
    expect(keepRatio).toBeGreaterThanOrEqual(bound(Date.now()) - keepRatioStep);
    expect(keepRatio).toBeLessThanOrEqual(bound(periodStartMs + hourMs));
    expect(keepRatio).toBeGreaterThan(0.24);
    expect(keepRatio).toBeLessThan(0.25);
    expect({ ingest: overview.ingest, usage: { ...overview.usage, read_at: null }, invoice: overview.invoice.current_minor }).toEqual({
      ingest: { stage: "sampling", keep_ratio: keepRatio },
      usage: { events: warmupEvents, events_received: warmupEvents, replay_recordings: 0, read_at: null, unreachable_regions: [] },
      invoice: 2900,
    });
    // Within the cap by construction: the projection keeps k of the arrivals, and the plan's included volume absorbs them.
    expect(overview.invoice.projected_minor).toBeLessThanOrEqual(2900);
    expect(service.nodes.get("eu")!.keepRatio(projectId)).toBe(keepRatio);
  });

  test("past the cap, capture answers quota_limited [events] and keeps a weighted sample: the trends total is within 5 standard errors", async () => {
    sent = Array.from({ length: sampledEvents }, () => nativeEvent({ uuid: seededUuid(), event: "capped_event" }));
    await sendAll(sent, ["events"]);
    const keptExpected = sent.filter((event) => keptBySampling(event.uuid, keepRatio)).length;

    const secret = (await createToken(owner, ["query:read", "sql.raw"])).secret;
    const token = await regionTokenFor(service, secret, projectId, ["query:read", "sql.raw"]);
    // Kept events carry their sample rate (the keep ratio; its inverse is their weight).
    const rates = await call(service.url, "POST", "/region/eu/sql", {
      headers: bearer(token), body: { sql: "SELECT sample_rate, count(*)::INTEGER AS kept FROM events WHERE event = 'capped_event' GROUP BY 1" },
    });
    expect(rates.status).toBe(200);
    expect(rates.body.rows).toEqual([[keepRatio, keptExpected]]);

    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const trends = await call(service.url, "POST", "/region/eu/query", {
      headers: bearer(token),
      body: { query: { ir_version: 1, date_range: { from: yesterday, to: today }, insight: { kind: "trends", interval: "day", series: [{ event: "capped_event", math: "total" }] } } },
    });
    expect(trends.status).toBe(200);
    const estimate = trends.body.result.rows[0].total as number;
    const standardError = Math.sqrt((sampledEvents * (1 - keepRatio)) / keepRatio);
    expect(estimate).toBeCloseTo(keptExpected / keepRatio, 6);
    expect(Math.abs(estimate - sampledEvents)).toBeLessThanOrEqual(standardErrorsAllowed * standardError);

    // Billing meters what was stored: the warm-up plus the kept sample; received counts every accepted event.
    // (The overview answers usage read up to usageCacheMs ago: the counters are read anew first.)
    await service.ctx.billing.evaluate(service.ctx, owner.orgId, { fresh: true });
    const overview = (await owner.client.get(`/app/orgs/${owner.orgId}/billing`)).body;
    expect({ ...overview.usage, read_at: null }).toEqual({
      events: warmupEvents + keptExpected, events_received: warmupEvents + sampledEvents, replay_recordings: 0, read_at: null, unreachable_regions: [],
    });
  });

  test("raising the cap pushes keep ratio 1 at once: every event is stored again and quota_limited is empty", async () => {
    const raised = await owner.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 1_000_000 });
    expect({ status: raised.status, body: raised.body }).toEqual({ status: 200, body: { spend_cap_minor: 1_000_000, previous_spend_cap_minor: 2900 } });
    expect(service.nodes.get("eu")!.keepRatio(projectId)).toBe(1);
    await sendAll([nativeEvent({ uuid: seededUuid(), event: "after_raise" })], []);
    expect((await owner.client.get(`/app/orgs/${owner.orgId}/billing`)).body.ingest).toEqual({ stage: "full", keep_ratio: 1 });
  });

  test("the periodic pass re-evaluates from the regions' counters: a lowered cap samples again, and a new period starts at ratio 1", async () => {
    const lowered = await owner.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 2900 });
    expect(lowered.status).toBe(200);
    const sampling = service.nodes.get("eu")!.keepRatio(projectId);
    expect(sampling).toBeLessThan(keepRatio);
    await service.ctx.billing.pass(service.ctx);
    expect(service.nodes.get("eu")!.keepRatio(projectId)).toBeLessThanOrEqual(sampling);
    // The period's end: the live subscription's period rolls forward (its renewal webhook is on its way), with no usage yet.
    const next = await service.ctx.billing.evaluate(service.ctx, owner.orgId, { fresh: true, nowMs: periodEndMs + hourMs });
    expect({ keepRatio: next.keepRatio, source: next.account.period.source, startMs: next.account.period.startMs, stored: next.usage.eventsStored })
      .toEqual({ keepRatio: 1, source: "subscription", startMs: periodEndMs, stored: 0 });
    expect(service.nodes.get("eu")!.keepRatio(projectId)).toBe(1);
  });
});
