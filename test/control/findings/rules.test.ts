// /app/projects/{id}/findings/rules over real HTTP: the DTO with its defaults, the fields each
// target kind takes, the metric a metric rule names, thresholds merged and each checked, every
// limit at its edge, destinations of the same project only (and taken out of rules when deleted),
// dry_run, audit rows, roles, tenancy, and the region's copy after each change, including a
// change of a metric a rule names.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { isoPattern, uuidPattern } from "../../helpers/client.ts";
import { defaultThresholds } from "../../../server/findings/findings-types.ts";
import { findingsRules } from "../../../server/control/db/schema.ts";
import { warningReasons } from "../../../server/ingest/ingestion-warnings.ts";
import {
  anomalyZMax, anomalyZMin, baselineWeeksMax, baselineWeeksMin, dailyCapMax, dailyCapMin, findingsNameLengthMax, relativeChangeMax, ruleDestinationsMax,
  rulesPerProjectMax, targetEventLengthMax,
} from "../../../server/control/findings/findings-limits.ts";
import { auditRows, destinationsPath, missingScope, regionConfig, regionDestination, regionProject, regionRule, rulesPath, slackUrl, validation } from "./fixture.ts";

let service: TestService;
let owner: SignedUpUser;
let project: any;
let destination: any;

beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu" });
  owner = await signUp(service, "Owner");
  project = (await createProject(owner, "Shop", "eu")).project;
  destination = (await owner.client.post(destinationsPath(project.id), { kind: "slack", name: "Alerts", secret: slackUrl })).body;
});
afterAll(() => service.close());

const base = () => rulesPath(project.id);
const create = (body: unknown, user = owner, projectId = project.id) => user.client.post(rulesPath(projectId), body);
const volume = { kind: "event_volume", event: "purchase_completed" };

describe("findings rules", () => {
  test("create with defaults, list, update and delete; the region holds each state", async () => {
    const created = await create({ name: "Purchases", target: volume, destination_ids: [destination.id] });
    expect(created.status).toBe(201);
    const dto = created.body;
    expect(dto).toEqual({
      id: expect.stringMatching(uuidPattern),
      project_id: project.id,
      name: "Purchases",
      cadence: "daily",
      enabled: true,
      min_severity: "warning",
      destination_ids: [destination.id],
      target: volume,
      thresholds: defaultThresholds,
      created_at: expect.stringMatching(isoPattern),
      updated_at: dto.created_at,
      created_by: owner.userId,
      daily_cap: null,
    });
    expect(regionConfig(service, project.id)).toEqual({
      ...regionProject(service, project), destinations: [regionDestination(destination, slackUrl, null)], rules: [regionRule(dto)], metrics: [],
    });
    expect((await owner.client.get(base())).body).toEqual({ rules: [dto] });

    const updated = await owner.client.patch(`${base()}/${dto.id}`, {
      name: "Hourly purchases", cadence: "hourly", enabled: false, min_severity: "critical", daily_cap: 5,
      thresholds: { direction: "drop", anomaly_z: 3, relative_change: null },
      target: { kind: "funnel_conversion", from_event: "cart_viewed", to_event: "purchase_completed" },
    });
    expect(updated.status).toBe(200);
    const updatedDto = {
      ...dto, name: "Hourly purchases", cadence: "hourly", enabled: false, min_severity: "critical", daily_cap: 5,
      thresholds: { ...defaultThresholds, direction: "drop", anomaly_z: 3, relative_change: null },
      target: { kind: "funnel_conversion", from_event: "cart_viewed", to_event: "purchase_completed" }, updated_at: expect.stringMatching(isoPattern),
    };
    expect(updated.body).toEqual(updatedDto);
    expect(regionConfig(service, project.id)!.rules).toEqual([regionRule(updated.body)]);

    // Thresholds merge over the rule's current ones; daily_cap null goes back to the deployment's default.
    const merged = await owner.client.patch(`${base()}/${dto.id}`, { thresholds: { min_volume: 0 }, daily_cap: null, destination_ids: [] });
    expect(merged.body).toEqual({ ...updatedDto, thresholds: { ...updatedDto.thresholds, min_volume: 0 }, daily_cap: null, destination_ids: [] });
    expect(regionConfig(service, project.id)!.rules).toEqual([regionRule(merged.body)]);

    const deleted = await owner.client.delete(`${base()}/${dto.id}`);
    expect([deleted.status, deleted.body]).toEqual([204, undefined]);
    expect(regionConfig(service, project.id)!.rules).toEqual([]);
    expect(await owner.client.delete(`${base()}/${dto.id}`)).toMatchObject({ status: 404, body: { error: { code: "not_found", message: "findings rule not found" } } });

    const audit = auditRows(service, dto.id);
    expect(audit.map((row) => [row.action, row.target_type])).toEqual([
      ["findings_rule.create", "findings_rule"], ["findings_rule.update", "findings_rule"], ["findings_rule.update", "findings_rule"], ["findings_rule.delete", "findings_rule"],
    ]);
    expect(audit[0]).toMatchObject({ before: null, after: dto });
    expect(audit[1]).toMatchObject({ before: dto, after: updated.body });
    expect(audit[3]).toMatchObject({ before: merged.body, after: null });
  });

  test("each target kind takes its own fields", async () => {
    const accepted: unknown[] = [
      { kind: "event_volume", event: "signup" },
      { kind: "funnel_conversion", from_event: "a", to_event: "b" },
      { kind: "ingestion_warnings" },
      ...warningReasons.map((key) => ({ kind: "ingestion_warnings", key })),
      { kind: "event_volume", event: "e".repeat(targetEventLengthMax) },
      { kind: "event_volume", event: "<script>alert(1)</script>' OR 1=1 --" },
    ];
    for (const target of accepted) {
      const reply = await create({ name: "Target", target });
      expect([target, reply.status, reply.body.target]).toEqual([target, 201, target]);
      await owner.client.delete(`${base()}/${reply.body.id}`);
    }
    const eventMessage = (field: string) => `target.${field} must be an event name of 1 to ${targetEventLengthMax} characters, not only white space`;
    const refused: [unknown, string][] = [
      [{ kind: "event_volume" }, "event_volume targets require target.event"],
      [{ kind: "event_volume", event: "" }, eventMessage("event")],
      [{ kind: "event_volume", event: "  " }, eventMessage("event")],
      [{ kind: "event_volume", event: "e".repeat(targetEventLengthMax + 1) }, eventMessage("event")],
      [{ kind: "event_volume", event: "a", key: "b" }, "target.key is not a field of event_volume targets (they take event)"],
      [{ kind: "funnel_conversion", from_event: "a" }, "funnel_conversion targets require target.to_event"],
      [{ kind: "funnel_conversion", to_event: "a" }, "funnel_conversion targets require target.from_event"],
      [{ kind: "funnel_conversion", from_event: "a", to_event: "" }, eventMessage("to_event")],
      [{ kind: "funnel_conversion", from_event: "a", to_event: "b", event: "c" }, "target.event is not a field of funnel_conversion targets (they take from_event, to_event)"],
      [{ kind: "metric" }, "metric targets require target.key"],
      [{ kind: "metric", key: "absent" }, 'target.key must name a metric of this project that is not archived ("absent" is not one)'],
      [{ kind: "metric", key: "k", event: "e" }, "target.event is not a field of metric targets (they take key)"],
      [{ kind: "ingestion_warnings", key: "nope" }, `target.key of ingestion_warnings targets must be one of ${warningReasons.join(", ")}`],
      [{ kind: "ingestion_warnings", event: "e" }, "target.event is not a field of ingestion_warnings targets (they take key)"],
      [{ kind: "event_volume", event: "a", extra: 1 }, "body /target/extra: Unexpected property"],
    ];
    for (const [target, message] of refused) {
      const reply = await create({ name: "Target", target });
      expect([target, reply.status, reply.body]).toEqual([target, 400, validation(message)]);
    }
    expect((await create({ name: "Target", target: { kind: "pageviews" } })).status).toBe(400);
    expect(await create({ name: "No target" })).toMatchObject({ status: 400 });
  });

  test("a metric rule names an unarchived metric of the project; the region gets the metric, and its changes", async () => {
    const { project: shop } = await createProject(owner, "Metrics", "eu");
    const metricsPath = `/app/projects/${shop.id}/metrics`;
    const metric = (await owner.client.post(metricsPath, { key: "conversion", name: "Conversion", query: { kind: "proportion", event: "purchase" }, unit: "%" })).body;
    const other = (await owner.client.post(metricsPath, { key: "unrelated", name: "Unrelated", query: { kind: "proportion", event: "x" } })).body;
    const { project: elsewhere } = await createProject(owner, "Elsewhere", "eu");
    await owner.client.post(`/app/projects/${elsewhere.id}/metrics`, { key: "foreign", name: "Foreign", query: { kind: "proportion", event: "y" } });
    expect(await create({ name: "Foreign", target: { kind: "metric", key: "foreign" } }, owner, shop.id)).toMatchObject({
      status: 400, body: validation('target.key must name a metric of this project that is not archived ("foreign" is not one)'),
    });

    const rule = await create({ name: "Conversion", target: { kind: "metric", key: "conversion" } }, owner, shop.id);
    expect([rule.status, rule.body.target]).toEqual([201, { kind: "metric", key: "conversion" }]);
    expect(regionConfig(service, shop.id)).toEqual({
      ...regionProject(service, shop), destinations: [], rules: [regionRule(rule.body)],
      metrics: [{ key: "conversion", name: "Conversion", kind: "proportion", query: { kind: "proportion", event: "purchase" }, unit: "%" }],
    });

    // The metric's new definition reaches the region; another metric's change does not matter.
    expect((await owner.client.patch(`${metricsPath}/${metric.id}`, { name: "Paid conversion", query: { kind: "mean", event: "purchase", property: "amount" } })).status).toBe(200);
    expect(regionConfig(service, shop.id)!.metrics).toEqual([
      { key: "conversion", name: "Paid conversion", kind: "mean", query: { kind: "mean", event: "purchase", property: "amount" }, unit: "%" },
    ]);
    expect((await owner.client.post(`${metricsPath}/${other.id}/archive`)).status).toBe(200);
    expect(regionConfig(service, shop.id)!.metrics).toHaveLength(1);
    // Archived: left out of the region's copy (its rules are not evaluated), and no new rule may name it.
    expect((await owner.client.post(`${metricsPath}/${metric.id}/archive`)).status).toBe(200);
    expect(regionConfig(service, shop.id)).toEqual({ ...regionProject(service, shop), destinations: [], rules: [regionRule(rule.body)], metrics: [] });
    expect(await create({ name: "Again", target: { kind: "metric", key: "conversion" } }, owner, shop.id)).toMatchObject({
      status: 400, body: validation('target.key must name a metric of this project that is not archived ("conversion" is not one)'),
    });
    // The rule itself can still be renamed (its target is not checked again unless given).
    expect((await owner.client.patch(`${rulesPath(shop.id)}/${rule.body.id}`, { name: "Old conversion" })).status).toBe(200);
  });

  test("thresholds: each field checked at its edges; at least one of the three changes stays set", async () => {
    const accepted: Record<string, unknown>[] = [
      { relative_change: relativeChangeMax }, { relative_change: 0.0001 }, { absolute_change: 0.5, relative_change: null },
      { anomaly_z: anomalyZMin, relative_change: null }, { anomaly_z: anomalyZMax }, { baseline_weeks: baselineWeeksMin }, { baseline_weeks: baselineWeeksMax },
      { min_volume: 0 }, { direction: "spike" }, {},
    ];
    for (const thresholds of accepted) {
      const reply = await create({ name: "T", target: volume, thresholds });
      expect([thresholds, reply.status, reply.body.thresholds]).toEqual([thresholds, 201, { ...defaultThresholds, ...thresholds }]);
      await owner.client.delete(`${base()}/${reply.body.id}`);
    }
    const relative = `thresholds.relative_change must be greater than 0 and at most ${relativeChangeMax}, or null`;
    const z = `thresholds.anomaly_z must be ${anomalyZMin} to ${anomalyZMax}, or null`;
    const weeks = `thresholds.baseline_weeks must be ${baselineWeeksMin} to ${baselineWeeksMax}`;
    const refused: [Record<string, unknown>, string][] = [
      [{ relative_change: 0 }, relative], [{ relative_change: -0.1 }, relative], [{ relative_change: relativeChangeMax + 0.001 }, relative],
      [{ absolute_change: 0 }, "thresholds.absolute_change must be greater than 0, or null"],
      [{ anomaly_z: anomalyZMin - 0.01 }, z], [{ anomaly_z: anomalyZMax + 0.01 }, z],
      [{ baseline_weeks: baselineWeeksMin - 1 }, weeks], [{ baseline_weeks: baselineWeeksMax + 1 }, weeks],
      [{ min_volume: -1 }, "thresholds.min_volume must be 0 or more"],
      [{ relative_change: null }, "thresholds: at least one of absolute_change, relative_change and anomaly_z must be set"],
      [{ window: 3 }, "body /thresholds/window: Unexpected property"],
    ];
    for (const [thresholds, message] of refused) {
      const reply = await create({ name: "T", target: volume, thresholds });
      expect([thresholds, reply.status, reply.body]).toEqual([thresholds, 400, validation(message)]);
    }
    for (const thresholds of [{ direction: "sideways" }, { baseline_weeks: 1.5 }]) {
      expect(await create({ name: "T", target: volume, thresholds })).toMatchObject({ status: 400, body: { error: { code: "validation" } } });
    }
    // On update the check applies to the merged thresholds.
    const rule = (await create({ name: "T", target: volume, thresholds: { relative_change: null, anomaly_z: 4 } })).body;
    expect(await owner.client.patch(`${base()}/${rule.id}`, { thresholds: { anomaly_z: null } })).toMatchObject({
      status: 400, body: validation("thresholds: at least one of absolute_change, relative_change and anomaly_z must be set"),
    });
    await owner.client.delete(`${base()}/${rule.id}`);
  });

  test("name, daily_cap and destination_ids at their edges", async () => {
    const ok = async (body: Record<string, unknown>) => {
      const reply = await create({ name: "Edge", target: volume, ...body });
      expect([body, reply.status]).toEqual([body, 201]);
      await owner.client.delete(`${base()}/${reply.body.id}`);
      return reply.body;
    };
    const refused = async (body: Record<string, unknown>, message: string) => {
      const reply = await create({ name: "Edge", target: volume, ...body });
      expect([body, reply.status, reply.body]).toEqual([body, 400, validation(message)]);
    };
    const nameMessage = `name must be 1 to ${findingsNameLengthMax} characters, not only white space`;
    await ok({ name: "n".repeat(findingsNameLengthMax) });
    await refused({ name: "n".repeat(findingsNameLengthMax + 1) }, nameMessage);
    await refused({ name: " " }, nameMessage);

    const capMessage = `daily_cap must be ${dailyCapMin} to ${dailyCapMax}, or null (the deployment's default)`;
    expect((await ok({ daily_cap: dailyCapMin })).daily_cap).toBe(dailyCapMin);
    expect((await ok({ daily_cap: dailyCapMax })).daily_cap).toBe(dailyCapMax);
    expect((await ok({ daily_cap: null })).daily_cap).toBeNull();
    await refused({ daily_cap: dailyCapMin - 1 }, capMessage);
    await refused({ daily_cap: dailyCapMax + 1 }, capMessage);

    const many = [];
    for (let index = 0; index <= ruleDestinationsMax; index++) {
      many.push((await owner.client.post(destinationsPath(project.id), { kind: "slack", name: `d${index}` })).body.id);
    }
    expect((await ok({ destination_ids: many.slice(0, ruleDestinationsMax) })).destination_ids).toEqual(many.slice(0, ruleDestinationsMax));
    await refused({ destination_ids: many }, `destination_ids takes at most ${ruleDestinationsMax} destinations`);
    await refused({ destination_ids: [many[0], many[0]] }, `destination_ids lists ${many[0]} more than once`);
    // Upper-case ids name the same destination.
    expect((await ok({ destination_ids: [many[0].toUpperCase()] })).destination_ids).toEqual([many[0]]);
    const unknownId = crypto.randomUUID();
    await refused({ destination_ids: [many[0], unknownId] }, `destination_ids: "${unknownId}" is not a findings destination of this project`);
    await refused({ destination_ids: ["not-an-id"] }, 'destination_ids: "not-an-id" is not a findings destination of this project');
    const { project: other } = await createProject(owner, "Other destinations", "eu");
    const foreign = (await owner.client.post(destinationsPath(other.id), { kind: "slack", name: "Foreign" })).body.id;
    await refused({ destination_ids: [foreign] }, `destination_ids: "${foreign}" is not a findings destination of this project`);
    for (const id of many) await owner.client.delete(`${destinationsPath(project.id)}/${id}`);
  });

  test(`at most ${rulesPerProjectMax} rules per project`, async () => {
    const { project: full } = await createProject(owner, "Full", "eu");
    // All but the last straight into the table (each API create pushes the whole, growing, configuration).
    const now = new Date().toISOString();
    service.ctx.db.insert(findingsRules).values(Array.from({ length: rulesPerProjectMax - 1 }, (_, index) => ({
      id: crypto.randomUUID(), projectId: full.id, name: `r${index}`, cadence: "daily" as const, enabled: true, minSeverity: "warning" as const,
      destinationIds: [], target: { kind: "event_volume" as const, event: "e" }, thresholds: defaultThresholds, dailyCap: null, createdAt: now, updatedAt: now, createdBy: owner.userId,
    }))).run();
    expect((await create({ name: "the last", target: volume }, owner, full.id)).status).toBe(201);
    expect(await create({ name: "one more", target: volume }, owner, full.id)).toMatchObject({
      status: 400, body: validation(`a project has at most ${rulesPerProjectMax} findings rules`),
    });
    expect(regionConfig(service, full.id)!.rules).toHaveLength(rulesPerProjectMax);
  });

  test("deleting a destination takes it out of every rule that sends to it, in the region too", async () => {
    const { project: shop } = await createProject(owner, "Pruning", "eu");
    const make = async (name: string) => (await owner.client.post(destinationsPath(shop.id), { kind: "slack", name, secret: slackUrl })).body;
    const [first, second] = [await make("First"), await make("Second")];
    const both = (await create({ name: "Both", target: volume, destination_ids: [first.id, second.id] }, owner, shop.id)).body;
    const only = (await create({ name: "Only first", target: volume, destination_ids: [first.id] }, owner, shop.id)).body;
    const none = (await create({ name: "None", target: volume }, owner, shop.id)).body;

    const dry = await owner.client.delete(`${destinationsPath(shop.id)}/${first.id}?dry_run=true`);
    expect(dry.status).toBe(200);
    expect((await owner.client.get(rulesPath(shop.id))).body.rules.map((rule: any) => rule.destination_ids)).toEqual([[first.id, second.id], [first.id], []]);

    expect((await owner.client.delete(`${destinationsPath(shop.id)}/${first.id}`)).status).toBe(204);
    const rules = (await owner.client.get(rulesPath(shop.id))).body.rules;
    expect(rules).toEqual([
      { ...both, destination_ids: [second.id], updated_at: expect.stringMatching(isoPattern) },
      { ...only, destination_ids: [], updated_at: expect.stringMatching(isoPattern) },
      none,
    ]);
    expect(regionConfig(service, shop.id)).toEqual({
      ...regionProject(service, shop), destinations: [regionDestination(second, slackUrl, null)], rules: rules.map(regionRule), metrics: [],
    });
  });

  test("dry_run previews a create, an update and a delete; nothing changes and nothing is audited", async () => {
    const dryCreate = await owner.client.post(`${base()}?dry_run=true`, { name: "Maybe", target: volume });
    expect(dryCreate.body).toEqual({
      action: "findings_rule.create", dry_run: true, before: null,
      after: {
        id: expect.stringMatching(uuidPattern), project_id: project.id, name: "Maybe", cadence: "daily", enabled: true, min_severity: "warning",
        destination_ids: [], target: volume, thresholds: defaultThresholds, created_at: expect.stringMatching(isoPattern),
        updated_at: expect.stringMatching(isoPattern), created_by: owner.userId, daily_cap: null,
      },
    });
    expect(auditRows(service, dryCreate.body.after.id)).toEqual([]);
    const real = (await create({ name: "Real", target: volume })).body;
    const config = regionConfig(service, project.id);
    const dryUpdate = await owner.client.patch(`${base()}/${real.id}?dry_run=true`, { cadence: "hourly" });
    expect(dryUpdate.body).toEqual({ action: "findings_rule.update", dry_run: true, before: real, after: { ...real, cadence: "hourly", updated_at: expect.stringMatching(isoPattern) } });
    const dryDelete = await owner.client.delete(`${base()}/${real.id}?dry_run=true`);
    expect([dryDelete.status, dryDelete.body]).toEqual([200, { action: "findings_rule.delete", dry_run: true, before: real, after: null }]);
    expect((await owner.client.get(base())).body.rules).toContainEqual(real);
    expect(regionConfig(service, project.id)).toEqual(config);
    expect(auditRows(service, real.id).map((row) => row.action)).toEqual(["findings_rule.create"]);
    await owner.client.delete(`${base()}/${real.id}`);
  });

  test("viewers read, members write; another project's rule, a malformed id and another tenant's project are 404", async () => {
    const viewer = await addMember(service, owner, "viewer");
    const member = await addMember(service, owner, "member");
    const rule = (await create({ name: "Roles", target: volume })).body;
    expect(await viewer.client.get(base())).toMatchObject({ status: 200 });
    for (const [method, path, body] of [
      ["POST", base(), { name: "x", target: volume }], ["PATCH", `${base()}/${rule.id}`, { name: "x" }], ["DELETE", `${base()}/${rule.id}`, undefined],
    ] as const) {
      const reply = await viewer.client.request(method, path, body);
      expect([method, reply.status, reply.body]).toEqual([method, 403, missingScope("alerts:write")]);
    }
    const byMember = await create({ name: "By member", target: volume }, member);
    expect([byMember.status, byMember.body.created_by]).toEqual([201, member.userId]);
    expect((await member.client.delete(`${base()}/${byMember.body.id}`)).status).toBe(204);

    const { project: other } = await createProject(owner, "Other rules", "eu");
    const notFound = { error: { code: "not_found", message: "findings rule not found" } };
    expect(await owner.client.patch(`${rulesPath(other.id)}/${rule.id}`, { name: "x" })).toMatchObject({ status: 404, body: notFound });
    expect(await owner.client.delete(`${rulesPath(other.id)}/${rule.id}`)).toMatchObject({ status: 404, body: notFound });
    expect(await owner.client.delete(`${base()}/42`)).toMatchObject({ status: 404, body: notFound });
    const stranger = await signUp(service, "Stranger");
    const projectNotFound = { error: { code: "not_found", message: "project not found" } };
    for (const [method, path, body] of [
      ["GET", base(), undefined], ["POST", base(), { name: "x", target: volume }], ["PATCH", `${base()}/${rule.id}`, { name: "x" }], ["DELETE", `${base()}/${rule.id}`, undefined],
    ] as const) {
      const reply = await stranger.client.request(method, path, body);
      expect([method, reply.status, reply.body]).toEqual([method, 404, projectNotFound]);
    }
    await owner.client.delete(`${base()}/${rule.id}`);
  });
});
