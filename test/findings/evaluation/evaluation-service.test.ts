// Findings rules judged over real ingested events: events sent through the ingest API with
// timestamps spanning five weeks, sealed by the storage worker, then the region's runner
// (evaluateDue at a chosen time, never a timer) raising exactly one finding for an injected
// drop of an event's hourly volume and of a daily funnel conversion, none when the period is
// judged again, the daily cap (FINDINGS_DAILY_CAP) keeping a second finding of the day unsent
// and not handed on, hostile event names kept as data, metric targets (proportion and mean)
// and ingestion-warning targets; GET /findings answers with what was raised; a finding goes
// through the region's real delivery outbox to a local webhook receiver; and a period judged
// before a restart raises nothing after it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp } from "../../helpers/accounts.ts";
import { bearer, call } from "../../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../../ingest/helpers.ts";
import type { FindingsRunner } from "../../../server/findings/evaluation/findings-runner.ts";
import type { RegionNode } from "../../../server/region/region-node.ts";
import type { RegionFindingsProject } from "../../../server/findings/findings-types.ts";
import { dayMs, hourMs, iso, projectConfig, RecordingDispatcher, rule, weekMs } from "./fixtures.ts";
import { waitFor } from "../../helpers/wait-for.ts";
import type { FindingsDispatcher } from "../../../server/findings/findings-types.ts";

let service: TestService;
let node: RegionNode;
let runner: FindingsRunner;
let owner: Awaited<ReturnType<typeof signUp>>;
let patSecret: string;
const dispatcher = new RecordingDispatcher();
/** The region's own dispatcher (its delivery outbox), set aside while the recording one stands in. */
let outbox: FindingsDispatcher;

/** Day D: three days ago (UTC); its 14:00 hour is judged by the hourly rules. */
const dayD = Math.floor(Date.now() / dayMs) * dayMs - 3 * dayMs;
const hourH = dayD + 14 * hourMs;
const after = (periodEnd: number) => periodEnd + 10 * 60_000;
const hostileName = `<img src=x onerror=alert(1)>'; DROP TABLE events;--\n{{7*7}} \${process.env}`;

interface Project {
  id: string;
  dataId: number;
  key: string;
}

async function project(name: string): Promise<Project> {
  const created = await createProject(owner, name, "eu", "UTC");
  const key = created.public_keys.find((k: { environment: string }) => k.environment === "production").key;
  return { id: created.project.id, key, dataId: node.store.findKey(key)!.dataId };
}

/** `count` events named `event` spread over the hour (or any span) from `start`, each by its own person unless `person` names one. */
const spread = (event: string, start: number, count: number, spanMs = hourMs, properties: (index: number) => Record<string, unknown> = () => ({}), person = (index: number) => `person-${event.length}-${start.toString(36)}-${index}`): NativeEvent[] =>
  Array.from({ length: count }, (_, index) => nativeEvent({
    event, distinct_id: person(index), timestamp: rfc3339(start + Math.floor(((index + 0.5) * spanMs) / count)), properties: properties(index),
  }));

async function send(target: Project, events: NativeEvent[]): Promise<void> {
  for (let index = 0; index < events.length; index += 1000) await sendAccepted(service.url, target.key, events.slice(index, index + 1000));
}

/** Only these projects' findings are configured (the runner judges every configured project). */
const configure = (...projects: RegionFindingsProject[]) => node.store.findingsConfig.replaceAll(projects);

beforeAll(async () => {
  service = await startTestService({ FINDINGS_DAILY_CAP: "1" });
  node = service.nodes.get("eu")!;
  runner = service.findings.get("eu")!;
  outbox = node.findings!;
  node.findings = dispatcher;
  owner = await signUp(service, "Findings owner");
  patSecret = (await createToken(owner, ["alerts:read"])).secret;
});

afterAll(async () => {
  await service.close();
});

describe("event volume and funnel conversion", () => {
  let web: Project;
  let config: RegionFindingsProject;
  const volumeRule = rule("0193d7a0-0000-7000-8000-000000000101", { name: "Signups", target: { kind: "event_volume", event: "signup" } }, { direction: "drop", relative_change: 0.3 });
  const funnelRule = rule("0193d7a0-0000-7000-8000-000000000102", {
    name: "Pricing to purchase", cadence: "daily", daily_cap: 5, target: { kind: "funnel_conversion", from_event: "viewed_pricing", to_event: "purchased" },
  }, { direction: "drop", relative_change: null, absolute_change: 10 });
  const cappedRule = rule("0193d7a0-0000-7000-8000-000000000103", { name: "Hostile", target: { kind: "event_volume", event: hostileName } }, { direction: "drop", relative_change: 0.5 });

  beforeAll(async () => {
    web = await project("Web");
    const events: NativeEvent[] = [];
    for (let week = 1; week <= 4; week++) {
      const back = week * weekMs;
      // 100 signups in each of the four baseline hours (97 to 103: a median of 100), 38 in hour H.
      events.push(...spread("signup", hourH - back, [97, 100, 100, 103][week - 1]!));
      // Each baseline day: 40 persons view pricing, 20 of them buy later that day (50%).
      events.push(...spread("viewed_pricing", dayD - back + 9 * hourMs, 40, hourMs, () => ({}), (index) => `w${week}-p${index}`));
      events.push(...spread("purchased", dayD - back + 11 * hourMs, 20, hourMs, () => ({}), (index) => `w${week}-p${index}`));
      // The hostile event: 30 in each baseline hour of 16:00 and 17:00.
      events.push(...spread(hostileName, dayD + 16 * hourMs - back, 30), ...spread(hostileName, dayD + 17 * hourMs - back, 30));
    }
    events.push(...spread("signup", hourH, 38));
    // Day D: 40 view pricing, 8 buy (20%); one buys the day after (outside the period).
    events.push(...spread("viewed_pricing", dayD + 9 * hourMs, 40, hourMs, () => ({}), (index) => `d-p${index}`));
    events.push(...spread("purchased", dayD + 11 * hourMs, 8, hourMs, () => ({}), (index) => `d-p${index}`));
    events.push(...spread("purchased", dayD + dayMs + hourMs, 1, hourMs, () => ({}), () => "d-p39"));
    // Hours 16:00 and 17:00 of day D: 3 hostile events each (a 90% drop).
    events.push(...spread(hostileName, dayD + 16 * hourMs, 3), ...spread(hostileName, dayD + 17 * hourMs, 3));
    await send(web, events);
    await node.events.flush();
    config = projectConfig(web.id, web.dataId, [volumeRule, funnelRule, cappedRule]);
    configure(config);
  });

  test("a normal hour raises nothing: hour H a week earlier, 97 signups against a median of 100", async () => {
    const pass = await runner.evaluateDue(after(hourH - weekMs + hourMs));
    expect(pass).toEqual({ raised: [], failed: 0, handedOn: 0 });
    expect(dispatcher.enqueued).toEqual([]);
  });

  test("an injected drop in hour H raises exactly one finding, handed to the dispatcher", async () => {
    const now = after(hourH + hourMs);
    const pass = await runner.evaluateDue(now);
    expect(pass.failed).toBe(0);
    expect(pass.raised).toEqual([{
      id: pass.raised[0]!.id,
      projectId: web.id,
      ruleId: volumeRule.id,
      ruleName: "Signups",
      target: { kind: "event_volume", event: "signup" },
      cadence: "hourly",
      severity: "warning",
      periodStart: iso(hourH),
      periodEnd: iso(hourH + hourMs),
      value: 38,
      baseline: 100,
      change: -62,
      relativeChange: -0.62,
      anomalyZ: null,
      summary: `signup fell 62% (38 vs a median of 100 on ${weekday(hourH)} 14:00–15:00 over 4 weeks)`,
      raisedAt: iso(now),
      sent: true,
    }]);
    expect(dispatcher.enqueued).toEqual([{ projectId: web.id, finding: pass.raised[0]!, destinationIds: volumeRule.destination_ids }]);
  });

  test("judging the same period again raises nothing, even with the judged periods forgotten", async () => {
    const now = after(hourH + hourMs);
    expect((await runner.evaluateDue(now)).raised).toEqual([]);
    // As after a restart that lost nothing but the judged-period memory: the finding's period is unique.
    node.store.findings.pruneJudged(now + 30 * dayMs);
    expect((await runner.evaluateDue(now + 60_000)).raised).toEqual([]);
    expect(node.store.findings.list(web.id, { ruleId: volumeRule.id, acknowledged: null, limit: 10, offset: 0 })).toHaveLength(1);
    expect(dispatcher.enqueued).toHaveLength(1);
  });

  test("a daily funnel conversion drop: 20% against a median of 50% of those who entered", async () => {
    const now = after(dayD + dayMs);
    const pass = await runner.evaluateDue(now);
    expect(pass.raised).toEqual([expect.objectContaining({
      ruleId: funnelRule.id, cadence: "daily", severity: "critical", periodStart: iso(dayD), periodEnd: iso(dayD + dayMs),
      value: 20, baseline: 50, change: -30, relativeChange: -0.6, anomalyZ: null, sent: true,
      summary: `conversion viewed_pricing → purchased fell 30 points (20% vs a median of 50% on ${weekday(dayD)} over 4 weeks)`,
    })]);
  });

  test("past the daily cap a finding is stored unsent and not handed on; hostile names stay data", async () => {
    const first = await runner.evaluateDue(after(dayD + 17 * hourMs));
    const second = await runner.evaluateDue(after(dayD + 18 * hourMs));
    const summary = (hour: number) => `<img src=x onerror=alert(1)>'; DROP TABLE events;-- {{7*7}} \${process.env} fell 90% (3 vs a median of 30 on ${weekday(dayD)} ${hour}:00–${hour + 1}:00 over 4 weeks)`;
    expect(first.raised.map(({ ruleId, sent, summary, value, baseline }) => ({ ruleId, sent, summary, value, baseline }))).toEqual([
      { ruleId: cappedRule.id, sent: true, summary: summary(16), value: 3, baseline: 30 },
    ]);
    expect(first.raised[0]!.target).toEqual({ kind: "event_volume", event: hostileName });
    expect(second.raised.map(({ ruleId, sent, summary }) => ({ ruleId, sent, summary }))).toEqual([{ ruleId: cappedRule.id, sent: false, summary: summary(17) }]);
    expect(dispatcher.enqueued.map(({ finding }) => finding.ruleId)).toEqual([volumeRule.id, funnelRule.id, cappedRule.id]);
  });

  test("GET /findings lists what was raised, newest first, with the deliveries the dispatcher reports", async () => {
    const stored = node.store.findings.list(web.id, { ruleId: null, acknowledged: null, limit: 10, offset: 0 });
    dispatcher.deliveries.set(stored.at(-1)!.id, [{
      destinationId: volumeRule.destination_ids[0]!, state: "delivered", nextAttemptAt: null,
      attempts: [{ destinationId: volumeRule.destination_ids[0]!, attempt: 1, at: iso(after(hourH + hourMs)), status: 200, ok: true, error: null, durationMs: 12 }],
    }]);
    const token = await regionTokenFor(service, patSecret, web.id, ["alerts:read"]);
    const reply = await call(service.url, "GET", "/region/eu/findings?limit=2", { headers: bearer(token) });
    expect(reply.status).toBe(200);
    const dto = (finding: (typeof stored)[number], deliveries: unknown[] = []) => ({
      id: finding.id, project_id: web.id, rule_id: finding.ruleId, rule_name: finding.ruleName, target: finding.target, cadence: finding.cadence,
      severity: finding.severity, period_start: finding.periodStart, period_end: finding.periodEnd, value: finding.value, baseline: finding.baseline,
      change: finding.change, relative_change: finding.relativeChange, anomaly_z: finding.anomalyZ, summary: finding.summary, raised_at: finding.raisedAt,
      sent: finding.sent, acknowledged_at: null, acknowledged_by: null, deliveries,
    });
    // Newest raised first: the funnel's day was judged last.
    expect(stored.map(({ ruleId, periodStart }) => [ruleId, periodStart])).toEqual([
      [funnelRule.id, iso(dayD)], [cappedRule.id, iso(dayD + 17 * hourMs)], [cappedRule.id, iso(dayD + 16 * hourMs)], [volumeRule.id, iso(hourH)],
    ]);
    expect(reply.body).toEqual({ findings: [dto(stored[0]!), dto(stored[1]!)], next_offset: 2 });
    const last = await call(service.url, "GET", "/region/eu/findings?offset=2", { headers: bearer(token) });
    expect(last.body).toEqual({
      findings: [dto(stored[2]!), dto(stored[3]!, [{
        destination_id: volumeRule.destination_ids[0], state: "delivered", next_attempt_at: null,
        attempts: [{ attempt: 1, at: iso(after(hourH + hourMs)), status: 200, ok: true, error: null, duration_ms: 12 }],
      }])],
      next_offset: null,
    });
    expect(reply.body.findings[1].summary).toStartWith("<img src=x onerror=alert(1)>'; DROP TABLE events;-- {{7*7}}");
  });
});

describe("metric and ingestion-warning targets", () => {
  test("a proportion metric (persons who did its event) rises and a mean metric (its property per such person) falls; a rule whose metric was archived is skipped; a rule that cannot be judged fails alone", async () => {
    const shop = await project("Shop");
    const events: NativeEvent[] = [];
    for (let week = 1; week <= 4; week++) events.push(...spread("purchased", dayD - week * weekMs + 12 * hourMs, 10, hourMs, () => ({ price: 100 })));
    events.push(...spread("purchased", dayD + 12 * hourMs, 30, hourMs, () => ({ price: 40 })));
    await send(shop, events);
    await node.events.flush();
    const buyers = rule("0193d7a0-0000-7000-8000-000000000201", { name: "Buyers", cadence: "daily", target: { kind: "metric", key: "buyers" } }, { direction: "spike", relative_change: 0.5, min_volume: 5 });
    const orderValue = rule("0193d7a0-0000-7000-8000-000000000202", { name: "Order value", cadence: "daily", target: { kind: "metric", key: "order_value" } }, { direction: "drop", relative_change: 0.3, anomaly_z: 3, min_volume: 5 });
    const archived = rule("0193d7a0-0000-7000-8000-000000000203", { name: "Gone", cadence: "daily", target: { kind: "metric", key: "archived_metric" } });
    const broken = rule("0193d7a0-0000-7000-8000-000000000204", { name: "Broken", cadence: "daily", target: { kind: "event_volume" } });
    configure(projectConfig(shop.id, shop.dataId, [archived, broken, buyers, orderValue], [
      { key: "buyers", name: "Buyers", kind: "proportion", query: { event: "purchased" }, unit: null },
      { key: "order_value", name: "Order value", kind: "mean", query: { event: "purchased", property: "price" }, unit: "EUR" },
    ]));
    const pass = await runner.evaluateDue(after(dayD + dayMs));
    expect(pass.failed).toBe(1);
    const day = weekday(dayD);
    expect(pass.raised.map(({ ruleId, severity, value, baseline, change, relativeChange, anomalyZ, summary, sent }) => ({ ruleId, severity, value, baseline, change, relativeChange, anomalyZ, summary, sent }))).toEqual([
      { ruleId: buyers.id, severity: "critical", value: 30, baseline: 10, change: 20, relativeChange: 2, anomalyZ: null, summary: `metric Buyers rose 200% (30 vs a median of 10 on ${day} over 4 weeks)`, sent: true },
      // A flat baseline of 100: the scale is the floor, 1% of it, so z = -60 / 1.
      { ruleId: orderValue.id, severity: "warning", value: 40, baseline: 100, change: -60, relativeChange: -0.6, anomalyZ: -60, summary: `metric Order value fell 60% (40 EUR vs a median of 100 EUR on ${day} over 4 weeks)`, sent: true },
    ]);
  });

  test("ingestion warnings of one reason, and of every reason, per hour", async () => {
    const warned = await project("Warned");
    const key = node.store.findKey(warned.key)!;
    const record = (reason: "invalid" | "clock_skew", at: number, count: number) => {
      for (let index = 0; index < count; index++) node.warnings.record(key, { reason, message: `${reason} example` }, { event: "x" }, at + index * 1000);
    };
    for (let week = 1; week <= 4; week++) record("invalid", hourH - week * weekMs, 2);
    record("invalid", hourH, 40);
    record("clock_skew", hourH + 30 * 60_000, 50);
    record("invalid", hourH + hourMs, 500); // the next hour: not in the period
    const invalid = rule("0193d7a0-0000-7000-8000-000000000301", { name: "Invalid events", target: { kind: "ingestion_warnings", key: "invalid" } }, { direction: "spike", relative_change: 1 });
    const all = rule("0193d7a0-0000-7000-8000-000000000302", { name: "All warnings", target: { kind: "ingestion_warnings" } }, { direction: "spike", relative_change: 1 });
    configure(projectConfig(warned.id, warned.dataId, [invalid, all]));
    // No dispatcher connected yet: the findings wait in the store, sent, until one is.
    node.findings = null;
    const handedBefore = dispatcher.enqueued.length;
    const pass = await runner.evaluateDue(after(hourH + hourMs));
    expect(pass.handedOn).toBe(0);
    node.findings = dispatcher;
    expect((await runner.evaluateDue(after(hourH + hourMs) + 60_000)).handedOn).toBe(2);
    expect(dispatcher.enqueued.slice(handedBefore).map(({ projectId, finding, destinationIds }) => [projectId, finding, destinationIds])).toEqual(
      pass.raised.map((finding) => [warned.id, finding, invalid.destination_ids]),
    );
    const hour = `${weekday(hourH)} 14:00–15:00`;
    expect(pass.raised.map(({ ruleId, severity, value, baseline, summary }) => ({ ruleId, severity, value, baseline, summary }))).toEqual([
      { ruleId: invalid.id, severity: "critical", value: 40, baseline: 2, summary: `ingestion warnings (invalid) rose 1900% (40 vs a median of 2 on ${hour} over 4 weeks)` },
      { ruleId: all.id, severity: "critical", value: 90, baseline: 2, summary: `ingestion warnings rose 4400% (90 vs a median of 2 on ${hour} over 4 weeks)` },
    ]);
  });
});

describe("with the region's delivery outbox", () => {
  test("a raised finding is delivered to a webhook destination, and GET /findings/{id} shows the attempt", async () => {
    const received: { body: unknown; signature: string | null }[] = [];
    const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (request) => {
      received.push({ body: await request.json(), signature: request.headers.get("webhook-signature") });
      return new Response("ok");
    } });
    try {
      const delivered = await project("Delivered");
      const key = node.store.findKey(delivered.key)!;
      for (let week = 1; week <= 4; week++) node.warnings.record(key, { reason: "invalid", message: "m" }, {}, hourH - week * weekMs);
      for (let index = 0; index < 30; index++) node.warnings.record(key, { reason: "invalid", message: "m" }, {}, hourH + index);
      const destinationId = "0193d7a0-0000-7000-8000-00000000d401";
      const warned = rule("0193d7a0-0000-7000-8000-000000000401", { name: "Warnings", destination_ids: [destinationId], target: { kind: "ingestion_warnings" } }, { direction: "spike" });
      configure({
        ...projectConfig(delivered.id, delivered.dataId, [warned]),
        destinations: [{
          id: destinationId, kind: "webhook", name: "Receiver", enabled: true, min_severity: "info", config: { to: [], channel: null },
          secret: `http://127.0.0.1:${receiver.port}/hook`, signing_secret: `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`,
        }],
      });
      node.findings = outbox;
      const pass = await runner.evaluateDue(after(hourH + hourMs));
      expect([pass.raised.length, pass.handedOn]).toEqual([1, 1]);
      const id = pass.raised[0]!.id;
      await waitFor(() => outbox.deliveriesOf(id)[0]?.state === "delivered", 10_000, "the finding's delivery");
      expect(received).toHaveLength(1);
      expect(received[0]!.signature).toStartWith("v1,");
      const token = await regionTokenFor(service, patSecret, delivered.id, ["alerts:read"]);
      const reply = await call(service.url, "GET", `/region/eu/findings/${id}`, { headers: bearer(token) });
      expect(reply.status).toBe(200);
      expect(reply.body.deliveries).toEqual([{
        destination_id: destinationId, state: "delivered", next_attempt_at: null,
        attempts: [{ attempt: 1, at: reply.body.deliveries[0].attempts[0].at, status: 200, ok: true, error: null, duration_ms: reply.body.deliveries[0].attempts[0].duration_ms }],
      }]);
      expect(reply.body.summary).toBe(`ingestion warnings rose 2900% (30 vs a median of 1 on ${weekday(hourH)} 14:00–15:00 over 4 weeks)`);
    } finally {
      node.findings = dispatcher;
      receiver.stop(true);
    }
  });
});

describe("after a restart", () => {
  test("a period judged before the restart raises nothing again, and its finding is still listed", async () => {
    const steady = await project("Steady");
    const key = node.store.findKey(steady.key)!;
    for (let week = 1; week <= 4; week++) node.warnings.record(key, { reason: "invalid", message: "m" }, {}, hourH - week * weekMs);
    for (let index = 0; index < 25; index++) node.warnings.record(key, { reason: "invalid", message: "m" }, {}, hourH + index);
    const warned = rule("0193d7a0-0000-7000-8000-000000000501", { name: "Warnings", target: { kind: "ingestion_warnings" } }, { direction: "spike" });
    configure(projectConfig(steady.id, steady.dataId, [warned]));
    const before = await runner.evaluateDue(after(hourH + hourMs));
    expect(before.raised.map(({ ruleId, value }) => [ruleId, value])).toEqual([[warned.id, 25]]);

    service = await service.restart();
    node = service.nodes.get("eu")!;
    runner = service.findings.get("eu")!;
    node.findings = dispatcher;
    expect((await runner.evaluateDue(after(hourH + hourMs))).raised).toEqual([]);
    // Even with the judged-period memory gone, the stored finding keeps the period from raising again.
    node.store.findings.pruneJudged(Date.now() + 30 * dayMs);
    expect((await runner.evaluateDue(after(hourH + hourMs) + 60_000)).raised).toEqual([]);
    expect(node.store.findings.list(steady.id, { ruleId: null, acknowledged: null, limit: 10, offset: 0 }).map(({ id }) => id)).toEqual([before.raised[0]!.id]);
  });
});

/** "Mondays" for the weekday of an instant (UTC). */
function weekday(epochMs: number): string {
  return ["Sundays", "Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays"][new Date(epochMs).getUTCDay()]!;
}
