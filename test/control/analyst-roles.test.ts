// Every console insight, dashboard, tile, cohort and annotation route by role (spec 1, Authentication:
// viewers hold the :read scopes only; members also the :write ones): a viewer reads and may
// favourite, and is refused every write with 403 missing_scope; a member writes. Writes are
// checked with dry_run, so nothing changes. The allowed answers are pinned in each resource's test.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../helpers/accounts.ts";

let service: TestService;
let viewer: SignedUpUser;
let member: SignedUpUser;
let base: string;
let fixtures: { insight: string; dashboard: string; tile: string; annotation: string; cohort: string };
const query = { ir_version: 1, date_range: { from: "-7d" }, insight: { kind: "trends", series: [{ event: "e" }] } };

beforeAll(async () => {
  service = await startTestService();
  const owner = await signUp(service, "Roles Owner");
  viewer = await addMember(service, owner, "viewer");
  member = await addMember(service, owner, "member");
  base = `/app/projects/${(await createProject(owner, "Roles")).project.id}`;
  const post = async (path: string, body?: unknown) => {
    const reply = await owner.client.post(`${base}${path}`, body);
    expect(reply.status).toBe(201);
    return reply.body;
  };
  const insight = (await post("/insights", { name: "I", query })).id;
  const dashboard = (await post("/dashboards", { name: "D" })).id;
  const tile = (await post(`/dashboards/${dashboard}/tiles`, { kind: "text", body: "t" })).id;
  const annotation = (await post("/annotations", { content: "a", kind: "note", occurred_at: new Date().toISOString() })).id;
  const cohort = (await post("/cohorts", { kind: "static", name: "C" })).id;
  fixtures = { insight, dashboard, tile, annotation, cohort };
});
afterAll(async () => {
  await service.close();
});

type Route = [method: "GET" | "POST" | "PATCH" | "DELETE", path: () => string, body: unknown, viewerScope: string | null];

const routes: Route[] = [
  ["GET", () => "/insights", undefined, null],
  ["GET", () => `/insights/${fixtures.insight}`, undefined, null],
  ["POST", () => "/insights", { name: "N", query }, "insights:write"],
  ["PATCH", () => `/insights/${fixtures.insight}`, { name: "R" }, "insights:write"],
  ["DELETE", () => `/insights/${fixtures.insight}`, undefined, "insights:write"],
  ["POST", () => `/insights/${fixtures.insight}/favorite`, { favorite: true }, null],
  ["GET", () => "/dashboards", undefined, null],
  ["GET", () => `/dashboards/${fixtures.dashboard}`, undefined, null],
  ["POST", () => "/dashboards", { name: "N" }, "dashboards:write"],
  ["PATCH", () => `/dashboards/${fixtures.dashboard}`, { name: "R" }, "dashboards:write"],
  ["DELETE", () => `/dashboards/${fixtures.dashboard}`, undefined, "dashboards:write"],
  ["POST", () => `/dashboards/${fixtures.dashboard}/layout`, () => ({ tiles: [{ id: fixtures.tile, x: 0, y: 3, w: 12, h: 2 }] }), "dashboards:write"],
  ["POST", () => `/dashboards/${fixtures.dashboard}/tiles`, { kind: "text", body: "n" }, "dashboards:write"],
  ["PATCH", () => `/dashboards/${fixtures.dashboard}/tiles/${fixtures.tile}`, { body: "r" }, "dashboards:write"],
  ["DELETE", () => `/dashboards/${fixtures.dashboard}/tiles/${fixtures.tile}`, undefined, "dashboards:write"],
  ["GET", () => "/cohorts", undefined, null],
  ["GET", () => `/cohorts/${fixtures.cohort}`, undefined, null],
  ["POST", () => "/cohorts", { kind: "static", name: "N" }, "cohorts:write"],
  ["PATCH", () => `/cohorts/${fixtures.cohort}`, { name: "R" }, "cohorts:write"],
  ["DELETE", () => `/cohorts/${fixtures.cohort}`, undefined, "cohorts:write"],
  ["GET", () => "/annotations", undefined, null],
  ["POST", () => "/annotations", { content: "n", kind: "note", occurred_at: "2026-11-27T00:00:00Z" }, "annotations:write"],
  ["PATCH", () => `/annotations/${fixtures.annotation}`, { content: "r" }, "annotations:write"],
  ["DELETE", () => `/annotations/${fixtures.annotation}`, undefined, "annotations:write"],
];

for (const [method, path, body, viewerScope] of routes) {
  test(`${method} ${path.toString().replace(/^\(\) => /, "")}: viewer ${viewerScope ?? "allowed"}, member allowed`, async () => {
    for (const [user, scope] of [[viewer, viewerScope], [member, null]] as const) {
      const suffix = method === "GET" ? "" : "?dry_run=true";
      const reply = await user.client.request(method, `${base}${path()}${suffix}`, typeof body === "function" ? body() : body);
      if (scope === null) expect([reply.status, reply.body?.error]).toEqual([200, undefined]);
      else expect([reply.status, reply.body]).toEqual([403, { error: { code: "missing_scope", message: `requires scope \`${scope}\`` } }]);
    }
  });
}
