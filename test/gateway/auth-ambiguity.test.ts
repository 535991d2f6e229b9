// Every route that needs a key refuses a caller without the right one with the very same 401:
// a missing key, an unknown one, a revoked one, a suspended project's, and the wrong kind (the
// root key on a project route, a project key on a root route) get byte-identical bodies and the
// same headers (but Date), so a refusal tells nothing about which keys exist. The refusal comes
// before anything of the request is checked: a malformed body, query or id is still a 401.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, testRootKey, type TestGateway } from "./harness.ts";

let gw: TestGateway;
/** The project whose routes are called (its live key), and the ids of real things in it. */
let caller: { id: string; key: string };
/** A project the root routes are called about. */
let target: { id: string; keyId: string };
let instanceId: string;
let messageId: string;
const keys = { revoked: "", suspended: "", unknown: "gw_live_000000000000000000000000000000000000000a" };

const unauthorizedBody = JSON.stringify({ error: { code: "unauthorized", message: "missing or invalid API key (send it in the apikey header)" } });
const overlongId = "x".repeat(65);
/** Every 401's headers but Date, in the order they come. */
let referenceHeaders = "";

interface Route {
  method: string;
  path: () => string;
  /** A valid body for the route (undefined: none). */
  body?: unknown;
  /** Requests that are wrong in themselves (a 400 for the right key). */
  invalid: () => { path?: string; body?: string }[];
}

const json = (value: unknown) => JSON.stringify(value);
const malformed = "{not json";

const projectRoutes: Route[] = [
  { method: "POST", path: () => "/v1/send", body: { to: "+4917000000001", text: "hi" }, invalid: () => [{ body: json({ to: "nope" }) }, { body: json({ to: "+4917000000001", text: "hi", extra: 1 }) }] },
  { method: "GET", path: () => "/v1/messages", invalid: () => [{ path: "/v1/messages?limit=0" }, { path: "/v1/messages?state=lost" }] },
  { method: "GET", path: () => `/v1/messages/${messageId}`, invalid: () => [{ path: `/v1/messages/${overlongId}` }] },
  { method: "GET", path: () => "/v1/pool", invalid: () => [] },
  { method: "GET", path: () => "/v1/usage", invalid: () => [] },
  { method: "GET", path: () => "/v1/sends", invalid: () => [{ path: "/v1/sends?limit=0" }, { path: `/v1/sends?messageId=${overlongId}` }] },
  { method: "GET", path: () => "/v1/deliveries", invalid: () => [{ path: "/v1/deliveries?state=lost" }] },
  { method: "POST", path: () => "/v1/deliveries/0190aaaa-0000-7000-8000-000000000000/replay", invalid: () => [{ path: `/v1/deliveries/${overlongId}/replay` }] },
  { method: "GET", path: () => "/v1/audit", invalid: () => [{ path: "/v1/audit?limit=0" }, { path: "/v1/audit?limit=abc" }] },
  { method: "POST", path: () => "/v1/instances", body: { phone: "+4917000000002" }, invalid: () => [{ body: json({ phone: "0049" }) }, { body: json({}) }] },
  { method: "GET", path: () => "/v1/instances", invalid: () => [{ path: "/v1/instances?limit=201" }] },
  { method: "GET", path: () => `/v1/instances/${instanceId}/number`, invalid: () => [{ path: `/v1/instances/${overlongId}/number` }] },
  { method: "GET", path: () => `/v1/instances/${instanceId}/qr`, invalid: () => [{ path: `/v1/instances/${instanceId}/qr?format=gif` }] },
  { method: "POST", path: () => `/v1/instances/${instanceId}/connect`, invalid: () => [{ path: `/v1/instances/${overlongId}/connect` }] },
  { method: "POST", path: () => `/v1/messages/${messageId}/cancel`, invalid: () => [{ path: `/v1/messages/${overlongId}/cancel` }] },
  { method: "POST", path: () => `/v1/instances/${instanceId}/logout`, invalid: () => [{ path: `/v1/instances/${overlongId}/logout` }] },
  { method: "POST", path: () => `/v1/instances/${instanceId}/retire`, invalid: () => [{ path: `/v1/instances/${overlongId}/retire` }] },
];

const rootRoutes: Route[] = [
  { method: "POST", path: () => "/v1/projects", body: { name: "Made by the test" }, invalid: () => [{ body: json({ name: "" }) }] },
  { method: "GET", path: () => "/v1/projects", invalid: () => [{ path: "/v1/projects?limit=0" }] },
  { method: "GET", path: () => `/v1/projects/${target.id}`, invalid: () => [{ path: `/v1/projects/${overlongId}` }] },
  { method: "POST", path: () => `/v1/projects/${target.id}/keys`, body: { name: "extra" }, invalid: () => [{ body: json({ name: 5 }) }] },
  { method: "GET", path: () => `/v1/projects/${target.id}/keys`, invalid: () => [{ path: `/v1/projects/${overlongId}/keys` }] },
  { method: "POST", path: () => `/v1/projects/${target.id}/webhook/rotate`, invalid: () => [{ path: `/v1/projects/${overlongId}/webhook/rotate` }] },
  { method: "PUT", path: () => `/v1/projects/${target.id}/webhook`, body: { url: "https://hooks.example/in" }, invalid: () => [{ body: json({ url: 5 }) }] },
  { method: "GET", path: () => "/v1/admin/instances", invalid: () => [{ path: "/v1/admin/instances?limit=0" }] },
  { method: "GET", path: () => "/v1/admin/alerts", invalid: () => [] },
  { method: "GET", path: () => "/v1/admin/metrics", invalid: () => [] },
  { method: "GET", path: () => "/v1/admin/shards", invalid: () => [] },
  { method: "GET", path: () => "/v1/admin/delivery-health", invalid: () => [] },
  { method: "GET", path: () => "/v1/admin/numbers", invalid: () => [] },
  { method: "GET", path: () => "/v1/admin/audit", invalid: () => [{ path: "/v1/admin/audit?limit=0" }, { path: "/v1/admin/audit?cursor=" }] },
  { method: "GET", path: () => "/v1/admin/deliveries", invalid: () => [{ path: "/v1/admin/deliveries?state=lost" }] },
  { method: "POST", path: () => "/v1/admin/deliveries/0190aaaa-0000-7000-8000-000000000000/replay", invalid: () => [{ path: `/v1/admin/deliveries/${overlongId}/replay` }] },
  { method: "POST", path: () => "/v1/admin/sweep", invalid: () => [] },
  { method: "POST", path: () => `/v1/projects/${target.id}/keys/${target.keyId}/revoke`, invalid: () => [{ path: `/v1/projects/${target.id}/keys/${overlongId}/revoke` }] },
  { method: "POST", path: () => `/v1/projects/${target.id}/disable`, invalid: () => [{ path: `/v1/projects/${overlongId}/disable` }] },
  { method: "POST", path: () => `/v1/projects/${target.id}/enable`, invalid: () => [{ path: `/v1/projects/${overlongId}/enable` }] },
];

async function raw(method: string, path: string, key: string | null, body?: string) {
  const headers: Record<string, string> = {};
  if (key !== null) headers.apikey = key;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(gw.url + path, { method, headers, body });
  const text = await response.text();
  const headerList = [...response.headers].filter(([name]) => name !== "date");
  return { status: response.status, text, headers: JSON.stringify(headerList) };
}

beforeAll(async () => {
  gw = await startTestGateway();
  caller = await gw.project();
  instanceId = (await gw.call("POST", "/v1/instances", { key: caller.key, body: { phone: "+4917000000099" } })).body.id;
  messageId = (await gw.call("POST", "/v1/send", { key: caller.key, body: { to: "+4917000000098", text: "queued" } })).body.id;
  const other = await gw.project();
  target = { id: other.id, keyId: (await gw.call("GET", `/v1/projects/${other.id}/keys`, { key: testRootKey })).body.keys[0].id };
  const revoked = (await gw.call("POST", `/v1/projects/${caller.id}/keys`, { key: testRootKey, body: { name: "to revoke" } })).body;
  await gw.call("POST", `/v1/projects/${caller.id}/keys/${revoked.key.id}/revoke`, { key: testRootKey });
  keys.revoked = revoked.secret;
  const suspended = await gw.project();
  await gw.call("POST", `/v1/projects/${suspended.id}/disable`, { key: testRootKey });
  keys.suspended = suspended.key;
  referenceHeaders = JSON.stringify([
    ["content-length", String(unauthorizedBody.length)],
    ["content-type", "application/json"],
    ["x-gateway-replica", gw.gateway.ctx.replica],
  ]);
});
afterAll(async () => {
  await gw.close();
});

/** Every refused way to call the route: each credential without the right, with the valid request and each invalid one. */
async function refusals(route: Route, wrongKind: string) {
  // A malformed body for every route that takes one by its method: the body is parsed first of all.
  const invalid = route.method === "GET" ? route.invalid() : [...route.invalid(), { body: malformed }];
  const requests = [{ path: route.path(), body: route.body === undefined ? undefined : json(route.body) }, ...invalid.map((wrong) => ({ path: wrong.path ?? route.path(), body: wrong.body ?? (route.body === undefined ? undefined : json(route.body)) }))];
  const answers = [];
  for (const request of requests) {
    for (const [credential, key] of [["missing", null], ["unknown", keys.unknown], ["revoked", keys.revoked], ["suspended", keys.suspended], ["wrong kind", wrongKind]] as const) {
      answers.push({ route: `${route.method} ${request.path}`, credential, ...(await raw(route.method, request.path, key, request.body)) });
    }
  }
  return answers;
}

test("every project route answers each refused key, with a valid or an invalid request, with the same 401", async () => {
  const answers = [];
  for (const route of projectRoutes) {
    const refused = await refusals(route, testRootKey);
    answers.push(...refused);
    const allowed = await raw(route.method, route.path(), caller.key, route.body === undefined ? undefined : json(route.body));
    expect({ route: `${route.method} ${route.path()}`, refusedWithTheRightKey: allowed.status === 401 }).toEqual({ route: `${route.method} ${route.path()}`, refusedWithTheRightKey: false });
  }
  expect(answers.filter((answer) => answer.status !== 401 || answer.text !== unauthorizedBody || answer.headers !== referenceHeaders)).toEqual([]);
  expect(answers.length).toBe(projectRoutes.reduce((sum, route) => sum + (1 + route.invalid().length + (route.method === "GET" ? 0 : 1)) * 5, 0));
});

test("every root route answers each refused key, with a valid or an invalid request, with the same 401", async () => {
  const answers = [];
  for (const route of rootRoutes) {
    const refused = await refusals(route, caller.key);
    answers.push(...refused);
    const allowed = await raw(route.method, route.path(), testRootKey, route.body === undefined ? undefined : json(route.body));
    expect({ route: `${route.method} ${route.path()}`, refusedWithTheRightKey: allowed.status === 401 }).toEqual({ route: `${route.method} ${route.path()}`, refusedWithTheRightKey: false });
  }
  expect(answers.filter((answer) => answer.status !== 401 || answer.text !== unauthorizedBody || answer.headers !== referenceHeaders)).toEqual([]);
});

test("a refusal carries only its length, its type and the replica that answered", async () => {
  const project = await raw("GET", "/v1/usage", null);
  const rootSide = await raw("GET", "/v1/admin/numbers", caller.key);
  expect(rootSide).toEqual(project);
  expect(project.headers).toBe(referenceHeaders);
});
