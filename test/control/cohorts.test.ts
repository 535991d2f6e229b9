// Cohorts on /app (docs/cohorts.md): whole bodies, definitions checked by the engine's parser,
// versions, references to other cohorts without cycles, deletes that would break another
// cohort, limits at their edges, 404s and scopes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { reply, validation } from "../helpers/replies.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern, uuidPattern } from "../helpers/client.ts";
import { nativeEvent, sendAccepted } from "../ingest/helpers.ts";
import { recalculateDueCohorts } from "../../server/control/cohorts/cohort-schedule.ts";
import { cohorts } from "../../server/control/db/schema.ts";
import { cohortsPerProjectMax } from "../../server/control/cohorts/cohort-schemas.ts";

let service: TestService;
let owner: SignedUpUser;
let viewer: SignedUpUser;
let projectId: string;
let base: string;

const pro = { type: "and", values: [{ type: "person", key: "plan", operator: "eq", value: "pro" }] };
const buyers = { type: "or", values: [{ type: "performed", event: "bought", count_operator: "gte", count: 2, days: 30 }, { type: "first_performed", event: "signed_up", days: 7 }] };

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Cohort Owner");
  viewer = await addMember(service, owner, "viewer");
  projectId = (await createProject(owner, "Cohorts")).project.id;
  base = `/app/projects/${projectId}/cohorts`;
});
afterAll(async () => {
  await service.close();
});

async function create(body: Record<string, unknown>) {
  const created = await owner.client.post(base, body);
  expect(created.status).toBe(201);
  return created.body;
}

describe("definitions and versions", () => {
  test("create, read, list, update and delete with whole bodies; a new definition raises the version", async () => {
    const created = await owner.client.post(base, { kind: "dynamic", name: " Pro users ", definition: pro, description: "On the pro plan" });
    const body = {
      id: expect.stringMatching(uuidPattern), project_id: projectId, name: "Pro users", kind: "dynamic", version: 1, created_at: expect.stringMatching(isoPattern),
      updated_at: created.body.created_at, calculation: null, calculations: [], created_by: owner.userId, definition: pro, description: "On the pro plan",
    };
    expect(reply(created)).toEqual({ status: 201, body });
    expect(reply(await viewer.client.get(`${base}/${created.body.id}`))).toEqual({ status: 200, body: created.body });
    const renamed = await owner.client.patch(`${base}/${created.body.id}`, { name: "Pro", definition: pro });
    expect(reply(renamed)).toEqual({ status: 200, body: { ...created.body, name: "Pro", updated_at: expect.stringMatching(isoPattern) } });
    const redefined = await owner.client.patch(`${base}/${created.body.id}`, { definition: buyers, description: null });
    expect(reply(redefined)).toEqual({ status: 200, body: { ...renamed.body, version: 2, definition: buyers, description: null, updated_at: expect.stringMatching(isoPattern) } });
    const staticCohort = await create({ kind: "static", name: "Beta testers" });
    expect([staticCohort.definition, staticCohort.version]).toEqual([null, 1]);
    expect(reply(await viewer.client.get(base))).toEqual({ status: 200, body: { cohorts: [staticCohort, redefined.body] } });
    expect(reply(await owner.client.delete(`${base}/${staticCohort.id}`))).toEqual({ status: 204, body: undefined });
    expect(reply(await owner.client.get(`${base}/${staticCohort.id}`))).toEqual({ status: 404, body: { error: { code: "not_found", message: "cohort not found" } } });
  });

  test("definitions are checked by the engine's parser; kinds decide whether one is needed", async () => {
    const post = async (body: Record<string, unknown>) => reply(await owner.client.post(base, body));
    expect(await post({ kind: "dynamic", name: "x" })).toEqual(validation("body /definition: a dynamic cohort needs a definition"));
    expect(await post({ kind: "static", name: "x", definition: pro })).toEqual(validation("body /definition: a static cohort has members, not a definition"));
    expect(await post({ kind: "dynamic", name: "x", definition: { type: "xor", values: [] } })).toEqual(validation("body /definition/type: must be one of and, or (a definition is a group of criteria)"));
    expect(await post({ kind: "dynamic", name: "x", definition: { type: "and", values: [{ type: "performed", event: "e", count_operator: "gte", count: 1, days: 3651 }] } })).toEqual(
      validation(expect.stringMatching(/^body \/definition\/values\/0\/days: /) as unknown as string),
    );
    expect(await post({ kind: "dynamic", name: "x", definition: { type: "and", values: [{ type: "person", key: "a", operator: "regex", value: "(" }] } })).toEqual(
      validation(expect.stringMatching(/^body \/definition\/values\/0\/value: /) as unknown as string),
    );
    expect(await post({ kind: "sometimes", name: "x" })).toEqual(validation("body /kind: Expected union value"));
    expect(await post({ kind: "dynamic", name: "n".repeat(201), definition: pro })).toEqual(validation("body /name: Expected string length less or equal to 200"));
    expect(await post({ kind: "dynamic", name: "x", definition: pro, description: "d".repeat(2001) })).toEqual(validation("body /description: Expected string length less or equal to 2000"));
    const fixed = await create({ kind: "static", name: "Fixed" });
    expect(reply(await owner.client.patch(`${base}/${fixed.id}`, { definition: pro }))).toEqual(validation("body /definition: a static cohort has members, not a definition"));
    expect(reply(await viewer.client.post(base, { kind: "static", name: "x" }))).toEqual({ status: 403, body: { error: { code: "missing_scope", message: "requires scope `cohorts:write`" } } });
  });

  test("a definition may name the project's other cohorts, never itself; a cohort in use cannot be deleted", async () => {
    const inner = await create({ kind: "dynamic", name: "Inner", definition: pro });
    const member = (id: string) => ({ type: "and", values: [{ type: "cohort", cohort_id: id, operator: "in" }] });
    const outer = await create({ kind: "dynamic", name: "Outer", definition: member(inner.id.toUpperCase()) });
    expect(outer.definition).toEqual(member(inner.id));
    expect(reply(await owner.client.patch(`${base}/${inner.id}`, { definition: member(outer.id) }))).toEqual(
      validation("body /definition: a cohort cannot include itself, directly or through the cohorts it names"),
    );
    expect(reply(await owner.client.patch(`${base}/${inner.id}`, { definition: member(inner.id) }))).toEqual(
      validation("body /definition: a cohort cannot include itself, directly or through the cohorts it names"),
    );
    const stranger = crypto.randomUUID();
    expect(reply(await owner.client.post(base, { kind: "dynamic", name: "x", definition: member(stranger) }))).toEqual(validation(`body /definition: cohort ${stranger} is not a cohort of this project`));
    const other = await signUp(service, "Other");
    const theirs = (await other.client.post(`/app/projects/${(await createProject(other, "T")).project.id}/cohorts`, { kind: "static", name: "T" })).body;
    expect(reply(await owner.client.post(base, { kind: "dynamic", name: "x", definition: member(theirs.id) }))).toEqual(validation(`body /definition: cohort ${theirs.id} is not a cohort of this project`));
    expect(reply(await owner.client.delete(`${base}/${inner.id}`))).toEqual({ status: 409, body: { error: { code: "conflict", message: 'cohort "Inner" is part of "Outer"; change those first' } } });
    expect(reply(await owner.client.delete(`${base}/${outer.id}`))).toEqual({ status: 204, body: undefined });
    expect(reply(await owner.client.delete(`${base}/${inner.id}`))).toEqual({ status: 204, body: undefined });
    for (const id of [theirs.id, "nope", crypto.randomUUID()]) {
      expect(reply(await owner.client.get(`${base}/${id}`))).toEqual({ status: 404, body: { error: { code: "not_found", message: "cohort not found" } } });
      expect(reply(await owner.client.post(`${base}/${id}/calculate`, {}))).toEqual({ status: 404, body: { error: { code: "not_found", message: "cohort not found" } } });
    }
  });
});

test(`a project holds at most ${cohortsPerProjectMax} cohorts`, async () => {
  const project = (await createProject(owner, "Full")).project.id;
  const now = new Date().toISOString();
  const rows = Array.from({ length: cohortsPerProjectMax - 1 }, (_, i) => ({
    id: crypto.randomUUID(), projectId: project, name: `c${i}`, description: null, kind: "static" as const, definition: null, version: 1, createdBy: owner.userId, createdAt: now, updatedAt: now, deletedAt: null,
  }));
  service.ctx.db.insert(cohorts).values(rows).run();
  expect((await owner.client.post(`/app/projects/${project}/cohorts`, { kind: "static", name: "last" })).status).toBe(201);
  expect(reply(await owner.client.post(`/app/projects/${project}/cohorts`, { kind: "static", name: "one more" }))).toEqual({
    status: 409, body: { error: { code: "conflict", message: `the project already has ${cohortsPerProjectMax} cohorts, the most it can hold; delete some first` } },
  });
});

describe("calculation", () => {
  let project: string;
  let url: string;
  const ok = (environment: string, size: number, version = 1) => ({ environment, status: "ok", calculated_at: expect.stringMatching(isoPattern), cohort_version: version, error: null, size });

  beforeAll(async () => {
    const created = await createProject(owner, "Calculated");
    project = created.project.id;
    url = `/app/projects/${project}/cohorts`;
    const bought = (distinct_id: string) => nativeEvent({ event: "bought", distinct_id, timestamp: new Date(Date.now() - 3_600_000).toISOString() });
    await sendAccepted(service.url, created.public_keys[0].key, [
      bought("ann"), bought("ann"), bought("bob"),
      nativeEvent({ event: "signed_up", distinct_id: "cat", $set: { plan: "pro" } }),
    ]);
  });
  const make = async (body: Record<string, unknown>) => {
    const created = await owner.client.post(url, body);
    expect(created.status).toBe(201);
    return created.body;
  };
  const calculate = async (id: string, body?: unknown, user = owner) => {
    const r = await user.client.post(`${url}/${id}/calculate`, body);
    return { status: r.status, body: r.body };
  };

  test("the region counts the members; each environment keeps its own calculation", async () => {
    const buyers = await make({ kind: "dynamic", name: "Repeat buyers", definition: { type: "and", values: [{ type: "performed", event: "bought", count_operator: "gte", count: 2, days: 30 }] } });
    expect(await calculate(buyers.id)).toEqual({ status: 200, body: { ...buyers, calculation: ok("production", 1), calculations: [ok("production", 1)] } });
    const staging = await calculate(buyers.id, { environment: "staging" });
    expect(staging).toEqual({ status: 200, body: { ...buyers, calculation: ok("production", 1), calculations: [ok("production", 1), ok("staging", 0)] } });
    expect(await calculate(buyers.id, { environment: "nowhere" })).toEqual(validation('unknown environment "nowhere"'));
    expect(await calculate(buyers.id, { environment: "" })).toEqual(validation("body /environment: Expected string length greater or equal to 1"));
    expect(await calculate(buyers.id, {}, viewer)).toEqual({ status: 403, body: { error: { code: "missing_scope", message: "requires scope `cohorts:write`" } } });
    const audit = service.ctx.db.$client.query("SELECT action, after FROM audit_log WHERE target_id = ? AND action = 'cohort.calculate' ORDER BY id").all(buyers.id) as { after: string }[];
    expect(audit.map((row) => JSON.parse(row.after))).toEqual([
      { environment: "production", status: "ok", size: 1, error: null }, { environment: "staging", status: "ok", size: 0, error: null },
    ]);
  });

  test("cohorts a definition names are calculated first; a static cohort's members are edited in the region", async () => {
    const pros = await make({ kind: "dynamic", name: "Pros", definition: pro });
    const outer = await make({ kind: "dynamic", name: "Pros again", definition: { type: "or", values: [{ type: "cohort", cohort_id: pros.id, operator: "in" }] } });
    expect(await calculate(outer.id)).toEqual({ status: 200, body: { ...outer, calculation: ok("production", 1), calculations: [ok("production", 1)] } });
    expect((await owner.client.get(`${url}/${pros.id}`)).body.calculations).toEqual([ok("production", 1)]);

    const testers = await make({ kind: "static", name: "Testers" });
    const token = (await owner.client.post(`/app/projects/${project}/region-token`, { scopes: ["cohorts:write"] })).body.token;
    const edited = await call(service.url, "POST", `/region/eu/cohorts/${testers.id}/static`, { headers: bearer(token), body: { add: [{ distinct_id: "ann" }, { distinct_id: "bob" }, { distinct_id: "nobody" }] } });
    expect(edited.status).toBe(200);
    expect(await calculate(testers.id)).toEqual({ status: 200, body: { ...testers, calculation: ok("production", 2), calculations: [ok("production", 2)] } });
  });

  test("the schedule recalculates what is stale or due, and nothing else", async () => {
    const own = await startTestService();
    try {
      const user = await signUp(own, "Scheduler");
      const url2 = `/app/projects/${(await createProject(user, "Scheduled")).project.id}/cohorts`;
      const post = async (body: Record<string, unknown>) => (await user.client.post(url2, body)).body;
      const fresh = await post({ kind: "dynamic", name: "Fresh", definition: pro });
      const changed = await post({ kind: "dynamic", name: "Changed", definition: pro });
      const never = await post({ kind: "dynamic", name: "Never calculated", definition: pro });
      const fixed = await post({ kind: "static", name: "Fixed" });
      for (const id of [fresh.id, changed.id]) expect((await user.client.post(`${url2}/${id}/calculate`)).status).toBe(200);
      expect((await user.client.post(`${url2}/${fresh.id}/calculate`, { environment: "staging" })).status).toBe(200);
      expect((await user.client.patch(`${url2}/${changed.id}`, { definition: { type: "and", values: [{ type: "person", key: "plan", operator: "eq", value: "free" }] } })).body.version).toBe(2);
      const calculations = async (id: string) => (await user.client.get(`${url2}/${id}`)).body.calculations;
      const before = await calculations(fresh.id);
      expect(await recalculateDueCohorts(own.ctx)).toBe(2);
      expect(await calculations(fresh.id)).toEqual(before);
      expect(await calculations(changed.id)).toEqual([ok("production", 0, 2)]);
      expect(await calculations(never.id)).toEqual([ok("production", 0)]);
      expect(await calculations(fixed.id)).toEqual([]);
      expect(await recalculateDueCohorts(own.ctx)).toBe(0);
      // An hour on, each dynamic cohort is due in production and wherever it was calculated before.
      expect(await recalculateDueCohorts(own.ctx, Date.now() + 3_600_000)).toBe(4);
      expect((await calculations(fresh.id)).map((row: any) => row.environment)).toEqual(["production", "staging"]);
    } finally {
      await own.close();
    }
  });

  test("a calculation the region refuses is recorded as an error with its reason", async () => {
    const small = await startTestService({ QUERY_ROWS_MAX: "1" });
    try {
      const user = await signUp(small, "Small");
      const created = await createProject(user, "Small");
      await sendAccepted(small.url, created.public_keys[0].key, [nativeEvent({ event: "bought" }), nativeEvent({ event: "bought" })]);
      const cohortsUrl = `/app/projects/${created.project.id}/cohorts`;
      const cohort = (await user.client.post(cohortsUrl, { kind: "dynamic", name: "Any buyer", definition: { type: "and", values: [{ type: "performed", event: "bought", count_operator: "gte", count: 1, days: 30 }] } })).body;
      const refused = await user.client.post(`${cohortsUrl}/${cohort.id}/calculate`);
      const calculation = { environment: "production", status: "error", calculated_at: expect.stringMatching(isoPattern), cohort_version: 1, error: "the cohort would read 2 rows; at most 1 (use fewer days or fewer events)", size: null };
      expect({ status: refused.status, body: refused.body }).toEqual({ status: 200, body: { ...cohort, calculation, calculations: [calculation] } });
    } finally {
      await small.close();
    }
  });
});

describe("cohorts named by flags", () => {
  test("a flag may only name the project's cohorts; a named cohort cannot be deleted; a new definition republishes the flag", async () => {
    const created = await createProject(owner, "Flagged");
    const app = `/app/projects/${created.project.id}`;
    const cohort = (await owner.client.post(`${app}/cohorts`, { kind: "dynamic", name: "Pros", definition: pro })).body;
    const stranger = crypto.randomUUID();
    const condition = (id: string) => ({ rules: [{ properties: [{ type: "cohort", cohort_id: id }] }] });
    expect(reply(await owner.client.post(`${app}/flags`, { key: "f", name: "F", ...condition(stranger) }))).toEqual(validation(`rules[0].properties[0]: cohort ${stranger} is not a cohort of this project`));
    const flag = (await owner.client.post(`${app}/flags`, { key: "pro-feature", name: "Pro feature", ...condition(cohort.id) })).body;
    expect(reply(await owner.client.patch(`${app}/flags/${flag.id}/environments/staging`, condition(stranger)))).toEqual(validation(`rules[0].properties[0]: cohort ${stranger} is not a cohort of this project`));
    expect(reply(await owner.client.delete(`${app}/cohorts/${cohort.id}`))).toEqual({ status: 409, body: { error: { code: "conflict", message: 'cohort "Pros" is named by flag pro-feature; change those first' } } });

    const versions = async () => (await owner.client.get(`${app}/flags/publications?environment=production`)).body.publications.map((p: any) => [p.version, p.status]);
    const before = await versions();
    const snapshot = () => service.nodes.get("eu")!.store.flags.snapshot(created.project.id, "production")!;
    expect(snapshot().cohorts).toEqual({ [cohort.id]: pro });
    const free = { type: "and", values: [{ type: "person", key: "plan", operator: "eq", value: "free" }] };
    expect((await owner.client.patch(`${app}/cohorts/${cohort.id}`, { name: "Renamed" })).status).toBe(200);
    expect(await versions()).toEqual(before);
    expect((await owner.client.patch(`${app}/cohorts/${cohort.id}`, { definition: free })).status).toBe(200);
    expect(await versions()).toEqual([[before[0][0] + 1, "published"], ...before]);
    expect(snapshot().cohorts).toEqual({ [cohort.id]: free });
  });
});
