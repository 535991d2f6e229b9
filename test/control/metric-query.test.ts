// A metric evaluated like an insight (POST /app/projects/{id}/metrics/{metric_id}/query):
// the trends document each metric kind becomes, the region token and request handed back, and
// that request answered by the real region over ingested events.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern } from "../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted } from "../ingest/helpers.ts";

let service: TestService;
let owner: SignedUpUser;
let viewer: SignedUpUser;
let base: string;
let metrics: Record<string, any>;
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Metric Owner");
  viewer = await addMember(service, owner, "viewer");
  const created = await createProject(owner, "Metrics");
  base = `/app/projects/${created.project.id}/metrics`;
  const make = async (body: Record<string, unknown>) => (await owner.client.post(base, body)).body;
  metrics = {
    buyers: await make({ key: "buyers", name: "Buyers", query: { kind: "proportion", event: "bought" } }),
    revenue: await make({ key: "revenue", name: "Revenue per buyer", query: { kind: "mean", event: "bought", property: "price" } }),
    orders: await make({ key: "orders", name: "Orders per buyer", query: { kind: "mean", event: "bought" } }),
  };
  const at = rfc3339(Date.parse(`${yesterday}T12:00:00Z`));
  await sendAccepted(service.url, created.public_keys[0].key, [
    nativeEvent({ event: "bought", distinct_id: "a", timestamp: at, properties: { price: 10 } }),
    nativeEvent({ event: "bought", distinct_id: "a", timestamp: at, properties: { price: 30 } }),
    nativeEvent({ event: "bought", distinct_id: "b", timestamp: at, properties: { price: 5 } }),
  ]);
});
afterAll(async () => {
  await service.close();
});

const rangeOfYesterday = { date_range: { from: yesterday, to: yesterday } };

test("each kind becomes a trends document; the region answers the request handed back", async () => {
  const series = {
    buyers: [{ event: "bought", math: "unique_persons" }],
    revenue: [{ event: "bought", math: "sum", property: "price" }, { event: "bought", math: "unique_persons" }],
    orders: [{ event: "bought", math: "total" }, { event: "bought", math: "unique_persons" }],
  };
  const values = { buyers: [[2]], revenue: [[45], [2]], orders: [[3], [2]] };
  for (const key of ["buyers", "revenue", "orders"] as const) {
    const prepared = await viewer.client.post(`${base}/${metrics[key].id}/query`, rangeOfYesterday);
    const query = { ir_version: 1, date_range: rangeOfYesterday.date_range, insight: { kind: "trends", interval: "day", series: series[key] } };
    expect({ key, status: prepared.status, body: prepared.body }).toEqual({
      key, status: 200,
      body: {
        region_token: { token: expect.any(String), region_api_url: `${service.url}/region/eu`, expires_at: expect.stringMatching(isoPattern), region: "eu", environment: "production", scopes: ["query:read"] },
        request: { method: "POST", url: `${service.url}/region/eu/query`, body: { query, include_sql: false, refresh: false } },
      },
    });
    const answer = await call(service.url, "POST", "/region/eu/query", { body: prepared.body.request.body, headers: bearer(prepared.body.region_token.token) });
    expect({ key, rows: answer.body.result.rows.map((row: any) => row.values) }).toEqual({ key, rows: values[key] });
  }
});

test("defaults: the last 30 days by day; bad bodies and unknown metrics answer 400 and 404", async () => {
  const prepared = await owner.client.post(`${base}/${metrics.buyers.id}/query`);
  expect(prepared.body.request.body.query).toEqual({ ir_version: 1, date_range: { from: "-30d" }, insight: { kind: "trends", interval: "day", series: [{ event: "bought", math: "unique_persons" }] } });
  expect((await owner.client.post(`${base}/${metrics.buyers.id}/query`, { interval: "week" })).body.request.body.query.insight.interval).toBe("week");
  const bad = async (body: unknown) => {
    const r = await owner.client.post(`${base}/${metrics.buyers.id}/query`, body);
    return { status: r.status, body: r.body };
  };
  expect(await bad({ interval: "fortnight" })).toEqual({ status: 400, body: { error: { code: "validation", message: "body /interval: Expected union value" } } });
  expect(await bad({ date_range: { from: "1900-01-01" } })).toEqual({ status: 400, body: { error: { code: "validation", message: 'body /query/date_range/from: "1900-01-01" is before 1970-01-01, the earliest date a query can name' } } });
  expect(await bad({ environment: "nowhere" })).toEqual({ status: 400, body: { error: { code: "validation", message: 'unknown environment "nowhere"' } } });
  const missing = await owner.client.post(`${base}/${crypto.randomUUID()}/query`, {});
  expect({ status: missing.status, body: missing.body }).toEqual({ status: 404, body: { error: { code: "not_found", message: "metric not found" } } });
});
