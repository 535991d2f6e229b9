// Every console flag, flag secret key, metric and experiment route by role (spec 1,
// Authentication: viewers hold the :read scopes only; members also the :write ones but not
// flags.production, experiments.ship or projects:write): a viewer reads everything and is
// refused every write with 403 missing_scope; a member writes except where the named scopes are
// needed. The owner's allowed answers are pinned in flags.test.ts and experiments.test.ts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../helpers/accounts.ts";

let service: TestService;
let owner: SignedUpUser;
let viewer: SignedUpUser;
let member: SignedUpUser;
let base: string;
let fixtures: { flag: string; multivariate: string; metric: string; draft: string; running: string; secret: string };

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Roles Owner");
  viewer = await addMember(service, owner, "viewer");
  member = await addMember(service, owner, "member");
  base = `/app/projects/${(await createProject(owner, "Roles")).project.id}`;
  const post = async (path: string, body?: unknown) => {
    const reply = await owner.client.post(`${base}${path}`, body);
    expect(reply.status).toBeLessThan(300);
    return reply.body;
  };
  const variants = [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }];
  const flag = (await post("/flags", { key: "plain", name: "Plain" })).id;
  const multivariate = (await post("/flags", { key: "mv", name: "MV", kind: "multivariate", variants })).id;
  const metric = (await post("/metrics", { key: "m", name: "M", query: { kind: "proportion", event: "bought" } })).id;
  const draft = (await post("/experiments", { flag_id: multivariate, key: "draft", name: "Draft", primary_metric_id: metric })).id;
  const other = (await post("/flags", { key: "mv2", name: "MV2", kind: "multivariate", variants })).id;
  const running = (await post("/experiments", { flag_id: other, key: "running", name: "Running", primary_metric_id: metric, environment: "staging" })).id;
  await post(`/experiments/${running}/launch`);
  const secret = (await post("/flag-secret-keys", { environment: "production", name: "s" })).key.id;
  fixtures = { flag, multivariate, metric, draft, running, secret };
});

afterAll(async () => {
  await service.stop();
});

type Route = [method: "GET" | "POST" | "PATCH" | "DELETE", path: () => string, body: unknown, viewerScope: string | null, memberScope: string | null];

// viewerScope / memberScope: the scope whose absence refuses that role (null: allowed). Checked
// with dry_run for writes, so each route is refused or previewed without changing anything.
const routes: Route[] = [
  ["GET", () => "/flags", undefined, null, null],
  ["GET", () => `/flags/${fixtures.flag}`, undefined, null, null],
  ["GET", () => "/flags/publications", undefined, null, null],
  ["POST", () => "/flags", { key: "new", name: "New" }, "flags:write", null],
  ["PATCH", () => `/flags/${fixtures.flag}`, { name: "Renamed" }, "flags:write", null],
  ["DELETE", () => `/flags/${fixtures.flag}`, undefined, "flags:write", null],
  ["PATCH", () => `/flags/${fixtures.flag}/environments/staging`, { enabled: true }, "flags:write", null],
  ["PATCH", () => `/flags/${fixtures.flag}/environments/production`, { enabled: true }, "flags:write", "flags.production"],
  ["GET", () => "/flag-secret-keys", undefined, null, null],
  ["POST", () => "/flag-secret-keys", { environment: "staging", name: "k" }, "flags:write", null],
  ["POST", () => `/flag-secret-keys/${fixtures.secret}/revoke`, undefined, "flags:write", null],
  ["GET", () => "/metrics", undefined, null, null],
  ["GET", () => `/metrics/${fixtures.metric}`, undefined, null, null],
  ["POST", () => "/metrics", { key: "n", name: "N", query: { kind: "mean", event: "e" } }, "insights:write", null],
  ["PATCH", () => `/metrics/${fixtures.metric}`, { name: "Renamed" }, "insights:write", null],
  ["POST", () => `/metrics/${fixtures.metric}/archive`, undefined, "insights:write", null],
  ["POST", () => `/metrics/${fixtures.metric}/certify`, undefined, "insights:write", "projects:write"],
  ["GET", () => "/experiments", undefined, null, null],
  ["GET", () => `/experiments/${fixtures.draft}`, undefined, null, null],
  ["POST", () => "/experiments/plan", { metric: { kind: "proportion", baseline_rate: 0.3 }, mde: 0.1 }, null, null],
  ["PATCH", () => `/experiments/${fixtures.draft}`, { name: "Renamed" }, "experiments:write", null],
  ["POST", () => `/experiments/${fixtures.draft}/launch`, undefined, "experiments:write", "flags.production"],
  ["POST", () => `/experiments/${fixtures.running}/stop`, undefined, "experiments:write", null],
  ["POST", () => `/experiments/${fixtures.running}/ship`, { variant: "control" }, "experiments.ship", "experiments.ship"],
  ["DELETE", () => `/experiments/${fixtures.draft}`, undefined, "experiments:write", null],
];

for (const [method, path, body, viewerScope, memberScope] of routes) {
  test(`${method} ${path.toString().replace(/^\(\) => /, "")}: viewer ${viewerScope ?? "allowed"}, member ${memberScope ?? "allowed"}`, async () => {
    for (const [user, scope] of [[viewer, viewerScope], [member, memberScope]] as const) {
      const suffix = method === "GET" ? "" : "?dry_run=true";
      const reply = await user.client.request(method, `${base}${path()}${suffix}`, body);
      if (scope === null) expect([reply.status, reply.body?.error]).toEqual([200, undefined]);
      else expect([reply.status, reply.body]).toEqual([403, { error: { code: "missing_scope", message: `requires scope \`${scope}\`` } }]);
    }
  });
}
