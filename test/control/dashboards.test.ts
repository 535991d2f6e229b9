// Dashboards and tiles on /app (docs/dashboards.md): whole bodies, the grid's rules, the home
// dashboard, overrides applied to each tile's region request (sent to the real region with a
// console region token), insight references, limits at their edges, 404s and 409s.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { conflict, reply, validation } from "../helpers/replies.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern, uuidPattern } from "../helpers/client.ts";
import { tilesPerDashboardMax } from "../../server/control/dashboards/dashboard-schemas.ts";

let service: TestService;
let owner: SignedUpUser;
let viewer: SignedUpUser;
let projectId: string;
let base: string;
let insight: any;

const trends = { ir_version: 1, date_range: { from: "-30d" }, filters: [{ type: "event", key: "$browser", operator: "eq", value: "Chrome" }], insight: { kind: "trends", interval: "day", series: [{ event: "signed_up", math: "total" }] } };
const regionUrl = () => `${service.url}/region/eu`;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Dashboard Owner");
  viewer = await addMember(service, owner, "viewer");
  projectId = (await createProject(owner, "Dashboards", "eu", "Europe/Paris")).project.id;
  base = `/app/projects/${projectId}/dashboards`;
  const made = await owner.client.post(`/app/projects/${projectId}/insights`, { name: "Sign-ups", query: trends });
  expect(made.status).toBe(201);
  insight = made.body;
});
afterAll(async () => {
  await service.close();
});

async function dashboard(body: Record<string, unknown> = { name: "Board" }) {
  const created = await owner.client.post(base, body);
  expect(created.status).toBe(201);
  return created.body;
}
async function tile(dashboardId: string, body: Record<string, unknown>) {
  const created = await owner.client.post(`${base}/${dashboardId}/tiles`, body);
  expect(created.status).toBe(201);
  return created.body;
}

describe("dashboards", () => {
  test("create answers the whole dashboard; one home dashboard per project", async () => {
    const created = await owner.client.post(base, { name: " Growth ", description: "KPIs", tags: ["kpi"], is_home: true, date_range: { from: "-7d", to: null } });
    expect(reply(created)).toEqual({
      status: 201,
      body: {
        id: expect.stringMatching(uuidPattern), project_id: projectId, name: "Growth", is_home: true, tags: ["kpi"], tiles: [], created_at: expect.stringMatching(isoPattern),
        updated_at: created.body.created_at, created_by: owner.userId, date_range: { from: "-7d" }, filters: null, description: "KPIs",
      },
    });
    const second = await dashboard({ name: "Second", is_home: true });
    expect((await owner.client.get(`${base}/${created.body.id}`)).body.is_home).toBe(false);
    expect((await owner.client.get(`${base}/${second.id}`)).body.is_home).toBe(true);
    const patched = await owner.client.patch(`${base}/${created.body.id}`, { is_home: true });
    expect(reply(patched)).toEqual({ status: 200, body: { ...created.body, updated_at: expect.stringMatching(isoPattern) } });
    expect((await owner.client.get(`${base}/${second.id}`)).body.is_home).toBe(false);
  });

  test("date range and filters are checked as Query IR; bounds at their edges", async () => {
    expect(reply(await owner.client.post(base, { name: "x", date_range: { from: "1900-01-01" } }))).toEqual(
      validation('body /date_range/from: "1900-01-01" is before 1970-01-01, the earliest date a query can name'),
    );
    expect(reply(await owner.client.post(base, { name: "x", date_range: { from: "-1d", to: "-7d" } }))).toEqual(
      validation(expect.stringMatching(/^body \/date_range: from \(.+\) must be before to \(.+\)$/) as unknown as string),
    );
    expect(reply(await owner.client.post(base, { name: "x", filters: { properties: [{ type: "event", key: "a", operator: "regex", value: "(" }] } }))).toEqual(
      validation(expect.stringMatching(/^body \/filters\/properties\/0\/value: /) as unknown as string),
    );
    const filter = { type: "event", key: "plan", operator: "eq", value: "pro" };
    expect((await owner.client.post(base, { name: "x", filters: { properties: Array(10).fill(filter) } })).status).toBe(201);
    expect(reply(await owner.client.post(base, { name: "x", filters: { properties: Array(11).fill(filter) } }))).toEqual(validation("body /filters/properties: Expected array length to be less or equal to 10"));
    expect(reply(await owner.client.post(base, { name: "x", description: "d".repeat(2001) }))).toEqual(validation("body /description: Expected string length less or equal to 2000"));
    expect(reply(await viewer.client.post(base, { name: "x" }))).toEqual({ status: 403, body: { error: { code: "missing_scope", message: "requires scope `dashboards:write`" } } });
  });

  test("list: home first, then by name, with tile counts, search, tags and paging", async () => {
    const project = (await createProject(owner, "Listing")).project.id;
    const post = async (body: Record<string, unknown>) => (await owner.client.post(`/app/projects/${project}/dashboards`, body)).body;
    const b = await post({ name: "b board", tags: ["x"] });
    const a = await post({ name: "A board", description: "Marketing 100%" });
    const home = await post({ name: "z home", is_home: true, tags: ["x"] });
    await owner.client.post(`/app/projects/${project}/dashboards/${b.id}/tiles`, { kind: "text", body: "hello" });
    const summary = (d: any, tiles: number) => ({ id: d.id, name: d.name, is_home: d.is_home, tags: d.tags, tile_count: tiles, created_at: d.created_at, updated_at: expect.stringMatching(isoPattern), description: d.description });
    const list = async (query = "") => reply(await owner.client.get(`/app/projects/${project}/dashboards${query}`));
    expect(await list()).toEqual({ status: 200, body: { dashboards: [summary(home, 0), summary(a, 0), summary(b, 1)], next_offset: null } });
    expect(await list("?limit=2")).toEqual({ status: 200, body: { dashboards: [summary(home, 0), summary(a, 0)], next_offset: 2 } });
    expect(await list("?limit=2&offset=2")).toEqual({ status: 200, body: { dashboards: [summary(b, 1)], next_offset: null } });
    expect(await list("?search=marketing")).toEqual({ status: 200, body: { dashboards: [summary(a, 0)], next_offset: null } });
    expect(await list("?tag=x")).toEqual({ status: 200, body: { dashboards: [summary(home, 0), summary(b, 1)], next_offset: null } });
    expect(await list("?limit=201")).toEqual(validation("limit must be an integer from 1 to 200"));
  });

  test("delete answers 204 and the dashboard is gone; other projects' and malformed ids are 404", async () => {
    const doomed = await dashboard({ name: "Doomed" });
    expect(reply(await owner.client.delete(`${base}/${doomed.id}`))).toEqual({ status: 204, body: undefined });
    const notFound = { status: 404, body: { error: { code: "not_found", message: "dashboard not found" } } };
    const other = await signUp(service, "Other");
    const theirs = (await other.client.post(`/app/projects/${(await createProject(other, "T")).project.id}/dashboards`, { name: "T" })).body;
    for (const id of [doomed.id, "nope", crypto.randomUUID(), theirs.id]) {
      expect(reply(await owner.client.get(`${base}/${id}`))).toEqual(notFound);
      expect(reply(await owner.client.patch(`${base}/${id}`, { name: "x" }))).toEqual(notFound);
      expect(reply(await owner.client.delete(`${base}/${id}`))).toEqual(notFound);
      expect(reply(await owner.client.post(`${base}/${id}/tiles`, { kind: "text", body: "x" }))).toEqual(notFound);
      expect(reply(await owner.client.post(`${base}/${id}/layout`, { tiles: [{ id: crypto.randomUUID(), x: 0, y: 0, w: 1, h: 1 }] }))).toEqual(notFound);
    }
  });
});

describe("tiles", () => {
  test("tiles are placed below the others, and each insight tile carries the region request with the dashboard's overrides", async () => {
    const board = await dashboard({ name: "Overrides", date_range: { from: "-14d", to: "yesterday" }, filters: { properties: [{ type: "person", key: "plan", operator: "eq", value: "pro" }] } });
    const note = await tile(board.id, { kind: "text", body: "# Growth\n<script>alert(1)</script>" });
    expect(note).toEqual({
      id: expect.stringMatching(uuidPattern), kind: "text", layout: { x: 0, y: 0, w: 12, h: 2 }, created_at: expect.stringMatching(isoPattern),
      body: "# Growth\n<script>alert(1)</script>", insight: null, insight_id: null, request: null, request_error: null,
    });
    const chart = await tile(board.id, { kind: "insight", insight_id: insight.id });
    const overridden = { ...trends, date_range: { from: "-14d", to: "yesterday" }, filters: [...trends.filters, { type: "person", key: "plan", operator: "eq", value: "pro" }] };
    expect(chart).toEqual({
      id: expect.stringMatching(uuidPattern), kind: "insight", layout: { x: 0, y: 2, w: 6, h: 5 }, created_at: expect.stringMatching(isoPattern), body: null,
      insight, insight_id: insight.id, request: { method: "POST", url: `${regionUrl()}/query`, body: { query: overridden, include_sql: false, refresh: false } }, request_error: null,
    });
    const read = await owner.client.get(`${base}/${board.id}`);
    expect(reply(read)).toEqual({ status: 200, body: { ...board, tiles: [note, chart], updated_at: expect.stringMatching(isoPattern) } });

    // The console's region token runs the tile's request in the region; nothing passes through the control plane.
    const token = await owner.client.post(`/app/projects/${projectId}/region-token`, { scopes: ["query:read"] });
    expect(reply(token)).toEqual({
      status: 200,
      body: { token: expect.any(String), region_api_url: regionUrl(), expires_at: expect.stringMatching(isoPattern), region: "eu", environment: "production", scopes: ["query:read"] },
    });
    const answer = await call(service.url, "POST", chart.request.url.slice(service.url.length), { body: chart.request.body, headers: bearer(token.body.token) });
    expect(answer.status).toBe(200);
    // The dashboard's 14 whole days ending yesterday, not the insight's own 30 days.
    expect([answer.body.result.buckets.length, answer.body.result.rows]).toEqual([14, [{ series: 0, event: "signed_up", math: "total", values: Array(14).fill(0), total: 0 }]]);
    expect(reply(await viewer.client.post(`/app/projects/${projectId}/region-token`, { scopes: ["query:write"] }))).toEqual({
      status: 403, body: { error: { code: "scope_not_held", message: expect.stringContaining("query:write") } },
    });
    expect(reply(await owner.client.post(`/app/projects/${projectId}/region-token`, { environment: "nowhere" }))).toEqual(validation('unknown environment "nowhere"'));
  });

  test("a query the overrides make invalid gets no request and says why", async () => {
    const filter = { type: "event", key: "k", operator: "is_set" };
    const crowded = (await owner.client.post(`/app/projects/${projectId}/insights`, { name: "Crowded", query: { ...trends, filters: Array(45).fill(filter) } })).body;
    const board = await dashboard({ name: "Too many", filters: { properties: Array(10).fill(filter) } });
    const chart = await tile(board.id, { kind: "insight", insight_id: crowded.id });
    expect([chart.request, chart.request_error]).toEqual([null, "/filters: expected array length to be less or equal to 50"]);
  });

  test("insight tiles need a live insight of the same project (409), text tiles a body (400)", async () => {
    const board = await dashboard({ name: "Refs" });
    const other = await signUp(service, "Foreign");
    const foreignProject = (await createProject(other, "F")).project.id;
    const foreign = (await other.client.post(`/app/projects/${foreignProject}/insights`, { name: "F", query: trends })).body;
    const deleted = (await owner.client.post(`/app/projects/${projectId}/insights`, { name: "Gone", query: trends })).body;
    expect((await owner.client.delete(`/app/projects/${projectId}/insights/${deleted.id}`)).status).toBe(204);
    const missing = crypto.randomUUID();
    const post = async (body: Record<string, unknown>) => reply(await owner.client.post(`${base}/${board.id}/tiles`, body));
    expect(await post({ kind: "insight", insight_id: foreign.id })).toEqual(conflict(`insight ${foreign.id} is not an insight of this project`));
    expect(await post({ kind: "insight", insight_id: missing })).toEqual(conflict(`insight ${missing} is not an insight of this project`));
    expect(await post({ kind: "insight", insight_id: deleted.id })).toEqual(conflict(`insight ${deleted.id} was deleted`));
    expect(await post({ kind: "insight" })).toEqual(validation("body /insight_id: an insight tile needs insight_id"));
    expect(await post({ kind: "insight", insight_id: insight.id, body: "caption" })).toEqual(validation("body /body: only text tiles have a body"));
    expect(await post({ kind: "text" })).toEqual(validation("body /body: a text tile needs a body"));
    expect(await post({ kind: "text", body: "x", insight_id: insight.id })).toEqual(validation("body /insight_id: a text tile shows no insight"));
    expect(await post({ kind: "text", body: "b".repeat(4001) })).toEqual(validation("body /body: Expected string length less or equal to 4000"));
    expect((await post({ kind: "text", body: "b".repeat(4000) })).status).toBe(201);
    expect(await post({ kind: "chart" })).toEqual(validation("body /kind: Expected union value"));
  });

  test("positions must stay on the grid and never overlap", async () => {
    const board = await dashboard({ name: "Grid" });
    const left = await tile(board.id, { kind: "text", body: "left", layout: { x: 0, y: 0, w: 6, h: 2 } });
    const right = await tile(board.id, { kind: "text", body: "right", layout: { x: 6, y: 0, w: 6, h: 2 } });
    const post = async (layout: Record<string, number>) => reply(await owner.client.post(`${base}/${board.id}/tiles`, { kind: "text", body: "x", layout }));
    expect(await post({ x: 7, y: 2, w: 6, h: 1 })).toEqual(validation("body /layout: x + w is 13; the grid has 12 columns"));
    expect(await post({ x: 0, y: 999, w: 1, h: 2 })).toEqual(validation("body /layout: y + h is 1001; the grid has 1000 rows"));
    expect(await post({ x: 12, y: 0, w: 1, h: 1 })).toEqual(validation("body /layout/x: Expected integer to be less or equal to 11"));
    expect(await post({ x: 0, y: 0, w: 1, h: 51 })).toEqual(validation("body /layout/h: Expected integer to be less or equal to 50"));
    const overlapping = await owner.client.post(`${base}/${board.id}/tiles`, { kind: "text", body: "x", layout: { x: 5, y: 1, w: 2, h: 1 } });
    expect(reply(overlapping)).toEqual(validation(expect.stringMatching(new RegExp(`^tiles ${left.id} and [0-9a-f-]{36} overlap$`)) as unknown as string));
    expect((await post({ x: 6, y: 999, w: 6, h: 1 })).status).toBe(201);

    // Moving: unlisted tiles stay; the result must be valid as a whole.
    const swap = await owner.client.post(`${base}/${board.id}/layout`, { tiles: [{ id: left.id, x: 6, y: 0, w: 6, h: 2 }, { id: right.id, x: 0, y: 0, w: 6, h: 2 }] });
    expect(swap.status).toBe(200);
    expect(swap.body.tiles.map((t: any) => [t.body, t.layout])).toEqual([["right", { x: 0, y: 0, w: 6, h: 2 }], ["left", { x: 6, y: 0, w: 6, h: 2 }], ["x", { x: 6, y: 999, w: 6, h: 1 }]]);
    const layout = async (tiles: unknown[]) => reply(await owner.client.post(`${base}/${board.id}/layout`, { tiles }));
    expect(await layout([{ id: left.id, x: 0, y: 0, w: 6, h: 2 }])).toEqual(validation(`tiles ${right.id} and ${left.id} overlap`));
    const stranger = crypto.randomUUID();
    expect(await layout([{ id: stranger, x: 0, y: 5, w: 1, h: 1 }])).toEqual(validation(`body /tiles/0/id: ${stranger} is not a tile of this dashboard`));
    expect(await layout([{ id: left.id, x: 0, y: 5, w: 1, h: 1 }, { id: left.id, x: 0, y: 7, w: 1, h: 1 }])).toEqual(validation(`body /tiles/1/id: tile ${left.id} is listed twice`));
    expect(await layout([{ id: left.id, x: 11, y: 5, w: 2, h: 1 }])).toEqual(validation("body /tiles/0: x + w is 13; the grid has 12 columns"));
    expect(await layout([])).toEqual(validation("body /tiles: Expected array length to be greater or equal to 1"));

    const moved = await owner.client.patch(`${base}/${board.id}/tiles/${left.id}`, { body: "left, edited", layout: { x: 6, y: 2, w: 6, h: 3 } });
    expect(reply(moved)).toEqual({ status: 200, body: { ...left, body: "left, edited", layout: { x: 6, y: 2, w: 6, h: 3 } } });
    expect(reply(await owner.client.patch(`${base}/${board.id}/tiles/${left.id}`, { layout: { x: 0, y: 0, w: 12, h: 3 } }))).toEqual(validation(`tiles ${right.id} and ${left.id} overlap`));
    expect(reply(await owner.client.patch(`${base}/${board.id}/tiles/${crypto.randomUUID()}`, { body: "x" }))).toEqual({ status: 404, body: { error: { code: "not_found", message: "tile not found" } } });
    expect(reply(await owner.client.delete(`${base}/${board.id}/tiles/${left.id}`))).toEqual({ status: 204, body: undefined });
    expect(reply(await owner.client.delete(`${base}/${board.id}/tiles/${left.id}`))).toEqual({ status: 404, body: { error: { code: "not_found", message: "tile not found" } } });
  });

  test("an insight tile's body cannot be set; deleting the insight takes its tiles off every dashboard", async () => {
    const own = (await owner.client.post(`/app/projects/${projectId}/insights`, { name: "Short-lived", query: trends })).body;
    const one = await dashboard({ name: "One" });
    const two = await dashboard({ name: "Two" });
    const chart = await tile(one.id, { kind: "insight", insight_id: own.id });
    await tile(two.id, { kind: "insight", insight_id: own.id });
    await tile(two.id, { kind: "text", body: "stays" });
    expect(reply(await owner.client.patch(`${base}/${one.id}/tiles/${chart.id}`, { body: "x" }))).toEqual(validation("body /body: only text tiles have a body"));
    expect((await owner.client.delete(`/app/projects/${projectId}/insights/${own.id}`)).status).toBe(204);
    expect((await owner.client.get(`${base}/${one.id}`)).body.tiles).toEqual([]);
    expect((await owner.client.get(`${base}/${two.id}`)).body.tiles.map((t: any) => t.body)).toEqual(["stays"]);
  });

  test(`a dashboard holds at most ${tilesPerDashboardMax} tiles`, async () => {
    const board = await dashboard({ name: "Full" });
    for (let i = 0; i < tilesPerDashboardMax; i++) await tile(board.id, { kind: "text", body: `${i}`, layout: { x: i % 12, y: Math.floor(i / 12), w: 1, h: 1 } });
    expect(reply(await owner.client.post(`${base}/${board.id}/tiles`, { kind: "text", body: "one more" }))).toEqual(validation(`a dashboard holds at most ${tilesPerDashboardMax} tiles`));
  });
});
