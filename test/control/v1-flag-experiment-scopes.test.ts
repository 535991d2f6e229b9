// Every /v1 flag and experiment route (spec 1: flags and experiments on /v1, scopes flags:*,
// flags.production, experiments:*, experiments.ship): with a token holding exactly the scopes
// the route needs it answers; with any one of them missing it is 403 missing_scope naming it;
// each write's dry run answers its audit action and changes nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";

let service: TestService;
let owner: SignedUpUser;
let projectId: string;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Scopes Owner");
  projectId = (await createProject(owner, "Scopes")).project.id;
});

afterAll(async () => {
  await service.stop();
});

const consolePost = async (path: string, body: unknown) => {
  const reply = await owner.client.post(`/app/projects/${projectId}${path}`, body);
  expect(reply.status).toBeLessThan(300);
  return reply.body;
};

let flagCount = 0;
async function flag(kind: "boolean" | "multivariate" = "boolean") {
  const key = `flag-${++flagCount}`;
  return consolePost("/flags", kind === "boolean" ? { key, name: key } : { key, name: key, kind, variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] });
}

let metricId: string;
async function experiment(status: "draft" | "running" | "stopped" = "draft") {
  metricId ??= (await consolePost("/metrics", { key: "m", name: "M", query: { kind: "proportion", event: "bought" } })).id;
  const created = await consolePost("/experiments", { flag_id: (await flag("multivariate")).id, key: `exp-${++flagCount}`, name: "E", environment: "staging", primary_metric_id: metricId });
  if (status !== "draft") await consolePost(`/experiments/${created.id}/launch`, {});
  if (status === "stopped") await consolePost(`/experiments/${created.id}/stop`, {});
  return created;
}

interface RouteCase {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path after /v1/projects/{project_id}, built from fresh fixtures. */
  path: () => Promise<string>;
  /** The body, or a function making a fresh one (each call needs its own fixtures). */
  body?: unknown;
  scopes: string[];
  status: number;
  /** Writes: the audit action of the dry run. */
  action?: string;
}

const cases: RouteCase[] = [
  { method: "GET", path: async () => "/flags", scopes: ["flags:read"], status: 200 },
  { method: "POST", path: async () => "/flags", body: { key: "made-by-v1", name: "V1" }, scopes: ["flags:write"], status: 201, action: "flag.create" },
  { method: "GET", path: async () => "/flags/publications", scopes: ["flags:read"], status: 200 },
  { method: "GET", path: async () => `/flags/${(await flag()).id}`, scopes: ["flags:read"], status: 200 },
  { method: "PATCH", path: async () => `/flags/${(await flag()).id}`, body: { name: "Renamed" }, scopes: ["flags:write"], status: 200, action: "flag.update" },
  { method: "DELETE", path: async () => `/flags/${(await flag()).id}`, scopes: ["flags:write"], status: 200, action: "flag.archive" },
  { method: "PATCH", path: async () => `/flags/${(await flag()).id}/environments/staging`, body: { enabled: true }, scopes: ["flags:write"], status: 200, action: "flag.environment.update" },
  {
    method: "PATCH", path: async () => `/flags/${(await flag()).id}/environments/production`, body: { enabled: true },
    scopes: ["flags:write", "flags.production"], status: 200, action: "flag.environment.update",
  },
  { method: "GET", path: async () => "/flag-secret-keys", scopes: ["flags:read"], status: 200 },
  { method: "POST", path: async () => "/flag-secret-keys", body: { environment: "production", name: "k" }, scopes: ["flags:write"], status: 201, action: "flag_secret_key.create" },
  {
    method: "POST", path: async () => `/flag-secret-keys/${(await consolePost("/flag-secret-keys", { environment: "staging", name: "r" })).key.id}/revoke`,
    scopes: ["flags:write"], status: 200, action: "flag_secret_key.revoke",
  },
  { method: "GET", path: async () => "/experiments", scopes: ["experiments:read"], status: 200 },
  {
    method: "POST", path: async () => "/experiments", body: async () => ({ flag_id: (await flag("multivariate")).id, key: `v1-exp-${++flagCount}`, name: "E" }),
    scopes: ["experiments:write"], status: 201, action: "experiment.create",
  },
  { method: "POST", path: async () => "/experiments/plan", body: { metric: { kind: "proportion", baseline_rate: 0.2 }, mde: 0.1 }, scopes: ["experiments:read"], status: 200 },
  { method: "GET", path: async () => `/experiments/${(await experiment()).id}`, scopes: ["experiments:read"], status: 200 },
  { method: "PATCH", path: async () => `/experiments/${(await experiment()).id}`, body: { hypothesis: "h" }, scopes: ["experiments:write"], status: 200, action: "experiment.update" },
  { method: "DELETE", path: async () => `/experiments/${(await experiment()).id}`, scopes: ["experiments:write"], status: 200, action: "experiment.delete" },
  { method: "POST", path: async () => `/experiments/${(await experiment()).id}/launch`, scopes: ["experiments:write"], status: 200, action: "experiment.launch" },
  { method: "POST", path: async () => `/experiments/${(await experiment("running")).id}/stop`, scopes: ["experiments:write"], status: 200, action: "experiment.stop" },
  { method: "POST", path: async () => `/experiments/${(await experiment("stopped")).id}/ship`, body: { variant: "control" }, scopes: ["experiments.ship"], status: 200, action: "experiment.ship" },
  { method: "GET", path: async () => `/experiments/${(await experiment("running")).id}/results`, scopes: ["experiments:read"], status: 200 },
];

const bodyOf = async (route: RouteCase) => (typeof route.body === "function" ? await (route.body as () => Promise<unknown>)() : route.body);

for (const route of cases) {
  test(`${route.method} ${route.scopes.join(" + ")}: allowed with exactly these scopes, 403 naming each missing one, dry run`, async () => {
    const call = async (scopes: string[], suffix = "") =>
      v1(service, (await createToken(owner, scopes)).secret, route.method, `/v1/projects/${projectId}${await route.path()}${suffix}`, await bodyOf(route));
    for (const missing of route.scopes) {
      const reply = await call([...route.scopes.filter((scope) => scope !== missing), "annotations:read"]);
      expect([reply.status, reply.body]).toEqual([403, { error: { code: "missing_scope", message: `requires scope \`${missing}\`` } }]);
    }
    if (route.action) {
      const preview = await call(route.scopes, "?dry_run=true");
      expect([preview.status, preview.body.action, preview.body.dry_run]).toEqual([200, route.action, true]);
    }
    const reply = await call(route.scopes);
    expect([reply.status, reply.body?.error]).toEqual([route.status, undefined]);
  });
}
