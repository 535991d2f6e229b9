// Saved insights on /app (docs/insights.md): every route over real HTTP with whole bodies, the
// Query IR check, viz rules, per-user favourites, list filters and paging, limits at their edges.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { reply, validation } from "../helpers/replies.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { isoPattern, uuidPattern } from "../helpers/client.ts";
import { insights } from "../../server/control/db/schema.ts";
import { insightsPerProjectMax } from "../../server/control/insights/insight-schemas.ts";

let service: TestService;
let owner: SignedUpUser;
let member: SignedUpUser;
let viewer: SignedUpUser;
let projectId: string;
let base: string;

const trends = { ir_version: 1, date_range: { from: "-30d" }, insight: { kind: "trends", interval: "day", series: [{ event: "signed_up", math: "total" }] } };
const funnel = { ir_version: 1, date_range: { from: "-30d" }, insight: { kind: "funnel", series: [{ event: "viewed" }, { event: "bought" }] } };

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Insight Owner");
  member = await addMember(service, owner, "member");
  viewer = await addMember(service, owner, "viewer");
  projectId = (await createProject(owner, "Insights", "eu", "Europe/Paris")).project.id;
  base = `/app/projects/${projectId}/insights`;
});
afterAll(async () => {
  await service.close();
});

async function create(user: SignedUpUser, body: Record<string, unknown>) {
  const created = await user.client.post(base, body);
  expect(created.status).toBe(201);
  return created.body;
}

describe("create and read", () => {
  test("create answers the whole insight, with the default viz of its kind and the caller's favourite", async () => {
    const created = await member.client.post(base, { name: "  Sign-ups  ", query: trends, description: "Daily", tags: ["growth", " kpi ", "growth"], favorited: true });
    expect(reply(created)).toEqual({
      status: 201,
      body: {
        id: expect.stringMatching(uuidPattern), project_id: projectId, name: "Sign-ups", created_via: "ui", favorited: true, query: trends,
        viz: { display: "line", show_legend: true, show_values: false, y_scale: "linear", stacked_percent: false },
        tags: ["growth", "kpi"], created_at: expect.stringMatching(isoPattern), updated_at: created.body.created_at, created_by: member.userId, description: "Daily",
      },
    });
    expect(reply(await member.client.get(`${base}/${created.body.id}`))).toEqual({ status: 200, body: created.body });
    // Favourites are per user: the owner sees the same insight unfavourited.
    expect(reply(await owner.client.get(`${base}/${created.body.id}`))).toEqual({ status: 200, body: { ...created.body, favorited: false } });
  });

  test("the query is checked by the region's Query IR validator, in the project's time zone", async () => {
    expect(reply(await owner.client.post(base, { name: "x", query: { ir_version: 1, date_range: { from: "-7d" } } }))).toEqual(validation("body /query/insight: is required"));
    expect(reply(await owner.client.post(base, { name: "x", query: { ...trends, ir_version: 2 } }))).toEqual(validation("body /query/ir_version: expected 1"));
    expect(reply(await owner.client.post(base, { name: "x", query: { ...trends, date_range: { from: "1900-01-01" } } }))).toEqual(
      validation('body /query/date_range/from: "1900-01-01" is before 1970-01-01, the earliest date a query can name'),
    );
    expect(reply(await owner.client.post(base, { name: "x", query: "trends" }))).toEqual(validation("body /query: Expected object"));
    expect(reply(await owner.client.post(base, { name: "x" }))).toEqual(validation("body /query: Expected required property"));
  });

  test("viz: a display must fit the kind; missing members take defaults", async () => {
    expect(reply(await owner.client.post(base, { name: "x", query: funnel, viz: { display: "line" } }))).toEqual(
      validation('body /viz/display: "line" cannot draw a funnel insight; use one of funnel_bars, table'),
    );
    expect(reply(await owner.client.post(base, { name: "x", query: trends, viz: { display: "pie", colour: "red" } }))).toEqual(validation("body /viz/colour: Unexpected property"));
    const bars = await create(owner, { name: "Bars", query: trends, viz: { display: "bar", y_scale: "log" } });
    expect(bars.viz).toEqual({ display: "bar", show_legend: true, show_values: false, y_scale: "log", stacked_percent: false });
    const funnelInsight = await create(owner, { name: "Funnel", query: funnel, created_via: "api" });
    expect([funnelInsight.viz.display, funnelInsight.created_via]).toEqual(["funnel_bars", "api"]);
  });

  test("names, descriptions and tags are bounded at their edges", async () => {
    expect((await owner.client.post(base, { name: "n".repeat(200), query: trends, description: "d".repeat(2000), tags: Array.from({ length: 20 }, (_, i) => `${"t".repeat(48)}${i}`.slice(-50)) })).status).toBe(201);
    expect(reply(await owner.client.post(base, { name: "n".repeat(201), query: trends }))).toEqual(validation("body /name: Expected string length less or equal to 200"));
    expect(reply(await owner.client.post(base, { name: "", query: trends }))).toEqual(validation("body /name: Expected string length greater or equal to 1"));
    expect(reply(await owner.client.post(base, { name: "x", query: trends, description: "d".repeat(2001) }))).toEqual(validation("body /description: Expected string length less or equal to 2000"));
    expect(reply(await owner.client.post(base, { name: "x", query: trends, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }))).toEqual(validation("body /tags: Expected array length to be less or equal to 20"));
    expect(reply(await owner.client.post(base, { name: "x", query: trends, tags: ["t".repeat(51)] }))).toEqual(validation("body /tags/0: Expected string length less or equal to 50"));
    expect(reply(await owner.client.post(base, { name: "x", query: trends, tags: ["  "] }))).toEqual(validation("body /tags/0: Expected string to match '\\S'"));
    expect(reply(await owner.client.post(base, { name: "x", query: trends, created_via: "robot" }))).toEqual(validation("body /created_via: Expected union value"));
  });

  test("unknown, malformed and other projects' insight ids are 404", async () => {
    const other = await signUp(service, "Other tenant");
    const foreignProject = (await createProject(other, "Theirs")).project.id;
    const foreign = await other.client.post(`/app/projects/${foreignProject}/insights`, { name: "Theirs", query: trends });
    expect(foreign.status).toBe(201);
    const notFound = { status: 404, body: { error: { code: "not_found", message: "insight not found" } } };
    for (const id of [crypto.randomUUID(), "not-a-uuid", foreign.body.id]) {
      expect(reply(await owner.client.get(`${base}/${id}`))).toEqual(notFound);
      expect(reply(await owner.client.patch(`${base}/${id}`, { name: "x" }))).toEqual(notFound);
      expect(reply(await owner.client.delete(`${base}/${id}`))).toEqual(notFound);
      expect(reply(await owner.client.post(`${base}/${id}/favorite`, { favorite: true }))).toEqual(notFound);
    }
    expect(reply(await other.client.get(`${base}/${foreign.body.id}`))).toEqual({ status: 404, body: { error: { code: "not_found", message: "project not found" } } });
  });
});

describe("update, favourite, delete", () => {
  test("a new query of another kind moves the viz to a display that fits; dry_run changes nothing", async () => {
    const insight = await create(member, { name: "Moves", query: trends, viz: { display: "pie", show_values: true } });
    const preview = await member.client.patch(`${base}/${insight.id}?dry_run=true`, { name: "Moved" });
    expect(reply(preview)).toEqual({ status: 200, body: { action: "insight.update", dry_run: true, before: insight, after: { ...insight, name: "Moved", updated_at: expect.stringMatching(isoPattern) } } });
    expect((await member.client.get(`${base}/${insight.id}`)).body).toEqual(insight);
    const changed = await member.client.patch(`${base}/${insight.id}`, { query: funnel, tags: ["b", "a", "b"], description: null });
    expect(reply(changed)).toEqual({
      status: 200,
      body: { ...insight, query: funnel, viz: { ...insight.viz, display: "funnel_bars" }, tags: ["b", "a"], description: null, updated_at: expect.stringMatching(isoPattern) },
    });
    expect(reply(await member.client.patch(`${base}/${insight.id}`, { viz: { display: "sankey" } }))).toEqual(
      validation('body /viz/display: "sankey" cannot draw a funnel insight; use one of funnel_bars, table'),
    );
    expect(reply(await member.client.patch(`${base}/${insight.id}`, { query: { ...funnel, insight: { kind: "funnel", series: [{ event: "one" }] } } }))).toEqual(
      validation("body /query/insight/series: funnel needs at least 2 series"),
    );
  });

  test("favourites belong to the caller; a viewer may favourite but not edit", async () => {
    const insight = await create(owner, { name: "Shared", query: trends });
    expect(reply(await viewer.client.post(`${base}/${insight.id}/favorite`, { favorite: true }))).toEqual({ status: 200, body: { ...insight, favorited: true } });
    expect((await owner.client.get(`${base}/${insight.id}`)).body.favorited).toBe(false);
    expect((await viewer.client.get(`${base}/${insight.id}`)).body.favorited).toBe(true);
    expect(reply(await viewer.client.post(`${base}/${insight.id}/favorite`, { favorite: false }))).toEqual({ status: 200, body: { ...insight, favorited: false } });
    expect(reply(await viewer.client.post(`${base}/${insight.id}/favorite`, {}))).toEqual(validation("body /favorite: Expected required property"));
    expect(reply(await viewer.client.patch(`${base}/${insight.id}`, { name: "Mine" }))).toEqual({ status: 403, body: { error: { code: "missing_scope", message: "requires scope `insights:write`" } } });
    expect(reply(await viewer.client.post(base, { name: "Mine", query: trends }))).toEqual({ status: 403, body: { error: { code: "missing_scope", message: "requires scope `insights:write`" } } });
  });

  test("delete answers 204, the insight is gone from reads and lists, and the audit log has it", async () => {
    const insight = await create(member, { name: "Doomed", query: trends });
    expect(reply(await member.client.delete(`${base}/${insight.id}?dry_run=true`))).toEqual({ status: 200, body: { action: "insight.delete", dry_run: true, before: insight, after: null } });
    expect(reply(await member.client.delete(`${base}/${insight.id}`))).toEqual({ status: 204, body: undefined });
    expect((await member.client.get(`${base}/${insight.id}`)).status).toBe(404);
    expect((await member.client.get(`${base}?search=doomed`)).body).toEqual({ insights: [], next_offset: null });
    const audit = service.ctx.db.$client.query("SELECT action, actor_id FROM audit_log WHERE target_id = ? ORDER BY id").all(insight.id);
    expect(audit).toEqual([{ action: "insight.create", actor_id: member.userId }, { action: "insight.delete", actor_id: member.userId }]);
  });
});

describe("list", () => {
  let listProject: string;
  let made: any[];
  const list = async (query: string, user = owner) => {
    const r = await user.client.get(`/app/projects/${listProject}/insights${query}`);
    expect(r.status).toBe(200);
    return r.body as { insights: any[]; next_offset: number | null };
  };
  const names = (page: { insights: any[] }) => page.insights.map((insight) => insight.name);

  beforeAll(async () => {
    listProject = (await createProject(owner, "Lists")).project.id;
    made = [];
    const post = async (user: SignedUpUser, body: Record<string, unknown>) => {
      const r = await user.client.post(`/app/projects/${listProject}/insights`, body);
      expect(r.status).toBe(201);
      made.push(r.body);
    };
    await post(owner, { name: "Alpha revenue", query: trends, tags: ["money"] });
    await post(member, { name: "Beta funnel", query: funnel, tags: ["money", "web"], description: "Checkout conversion" });
    await post(owner, { name: "Gamma 100%_done", query: trends, tags: ["web"], favorited: true });
    await post(member, { name: "Delta", query: funnel });
  });

  test("newest change first by default, by name on request, paged with next_offset", async () => {
    expect(names(await list(""))).toEqual(["Delta", "Gamma 100%_done", "Beta funnel", "Alpha revenue"]);
    expect(names(await list("?order=name"))).toEqual(["Alpha revenue", "Beta funnel", "Delta", "Gamma 100%_done"]);
    const first = await list("?order=name&limit=3");
    expect([names(first), first.next_offset]).toEqual([["Alpha revenue", "Beta funnel", "Delta"], 3]);
    const second = await list("?order=name&limit=3&offset=3");
    expect([names(second), second.next_offset]).toEqual([["Gamma 100%_done"], null]);
    expect((await list("?limit=200")).insights).toHaveLength(4);
    expect((await list("?offset=100000")).insights).toEqual([]);
  });

  test("search, tags, kind, created_by and favourited narrow the list", async () => {
    expect(names(await list("?search=CHECKOUT"))).toEqual(["Beta funnel"]);
    // LIKE wildcards are plain text in a search.
    expect(names(await list(`?search=${encodeURIComponent("%_")}`))).toEqual(["Gamma 100%_done"]);
    expect(names(await list("?tag=money&tag=web"))).toEqual(["Beta funnel"]);
    expect(names(await list("?tag=money&order=name"))).toEqual(["Alpha revenue", "Beta funnel"]);
    expect(names(await list("?kind=funnel"))).toEqual(["Delta", "Beta funnel"]);
    expect(names(await list("?created_by=me", member))).toEqual(["Delta", "Beta funnel"]);
    expect(names(await list(`?created_by=${owner.userId}`, member))).toEqual(["Gamma 100%_done", "Alpha revenue"]);
    expect(names(await list("?favorited=true"))).toEqual(["Gamma 100%_done"]);
    expect(names(await list("?favorited=true", member))).toEqual([]);
    expect(names(await list("?favorited=false&kind=trends"))).toEqual(["Alpha revenue"]);
    expect((await list("?favorited=true")).insights[0]).toEqual(made[2]);
  });

  test("bad parameters are 400s naming the parameter", async () => {
    const bad = async (query: string) => reply(await owner.client.get(`/app/projects/${listProject}/insights${query}`));
    expect(await bad("?limit=0")).toEqual(validation("limit must be an integer from 1 to 200"));
    expect(await bad("?limit=201")).toEqual(validation("limit must be an integer from 1 to 200"));
    expect(await bad("?offset=100001")).toEqual(validation("offset must be an integer from 0 to 100000"));
    expect(await bad("?offset=-1")).toEqual(validation("offset must be an integer from 0 to 100000"));
    expect(await bad(`?search=${"s".repeat(201)}`)).toEqual(validation("search must be 1 to 200 characters"));
    expect((await owner.client.get(`/app/projects/${listProject}/insights?search=${"s".repeat(200)}`)).status).toBe(200);
    expect(await bad("?search=%20")).toEqual(validation("search must be 1 to 200 characters"));
    expect(await bad(`?${Array.from({ length: 11 }, (_, i) => `tag=t${i}`).join("&")}`)).toEqual(validation("at most 10 tag filters"));
    expect(await bad("?kind=pie")).toEqual(validation("kind must be one of trends, funnel, retention, paths, lifecycle, stickiness, revenue"));
    expect(await bad("?favorited=yes")).toEqual(validation("favorited must be true or false"));
    expect(await bad("?created_by=someone")).toEqual(validation('created_by must be a user id or "me"'));
    expect(await bad("?order=random")).toEqual(validation("order must be one of updated, created, name"));
  });
});

test(`a project holds at most ${insightsPerProjectMax} insights`, async () => {
  const full = (await createProject(owner, "Full")).project.id;
  const now = new Date().toISOString();
  const rows = Array.from({ length: insightsPerProjectMax - 1 }, (_, i) => ({
    id: crypto.randomUUID(), projectId: full, name: `i${i}`, description: null, kind: "trends", query: trends, viz: {}, tags: [], createdVia: "api",
    createdBy: owner.userId, createdAt: now, updatedAt: now, deletedAt: null,
  }));
  for (let i = 0; i < rows.length; i += 500) service.ctx.db.insert(insights).values(rows.slice(i, i + 500)).run();
  const last = await owner.client.post(`/app/projects/${full}/insights`, { name: "last", query: trends });
  expect(last.status).toBe(201);
  expect(reply(await owner.client.post(`/app/projects/${full}/insights`, { name: "one more", query: trends }))).toEqual({
    status: 409, body: { error: { code: "conflict", message: `the project already has ${insightsPerProjectMax} insights, the most it can hold; delete some first` } },
  });
  expect((await owner.client.delete(`/app/projects/${full}/insights/${last.body.id}`)).status).toBe(204);
  expect((await owner.client.post(`/app/projects/${full}/insights`, { name: "again", query: trends })).status).toBe(201);
});
