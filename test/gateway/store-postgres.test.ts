// The gateway on PostgreSQL (GATEWAY_DATABASE_URL), the store replicas share: the same schema
// and answers as on SQLite, a second start on the same database keeps everything (its
// migrations are already applied), and readiness is 503 while the database is down and 200
// again once it is back, with liveness 200 throughout.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { call, type Reply } from "../helpers/client.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { reply } from "../helpers/replies.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

const rootKey = "gw_root_test_0123456789abcdefghijklmnop";
let postgres: TestPostgres;
let service: TestService;

const gw = (method: string, path: string, key: string | null, body?: unknown): Promise<Reply> =>
  call(service.url, method, `/gateway${path}`, { body, headers: key === null ? {} : { apikey: key } });

beforeAll(async () => {
  postgres = await startTestPostgres();
  service = await startTestService({ GATEWAY_ROOT_KEY: rootKey, GATEWAY_DATABASE_URL: postgres.url, REGIONS: "eu" });
}, 120_000);
afterAll(async () => {
  await service?.close();
  await postgres?.close();
});

test("projects, keys and the audit trail live in PostgreSQL and survive a restart of the gateway", async () => {
  expect(reply(await gw("GET", "/v1/ready", null))).toEqual({ status: 200, body: { status: "ready", store: "postgres" } });
  const created = await gw("POST", "/v1/projects", rootKey, { name: "On Postgres", webhookUrl: "https://hooks.example/pg" });
  expect(created.status).toBe(201);
  const minted = await gw("POST", `/v1/projects/${created.body.project.id}/keys`, rootKey, { name: "api" });
  expect(minted.status).toBe(201);
  service = await service.restart();
  expect(reply(await gw("GET", `/v1/projects/${created.body.project.id}`, rootKey))).toEqual({ status: 200, body: created.body.project });
  const trail = await gw("GET", "/v1/audit", minted.body.secret);
  expect(trail.body.entries.map(({ action }: { action: string }) => action)).toEqual(["key.minted", "project.created"]);
});

test("ready is 503 while PostgreSQL is down and 200 once it is back; live stays 200", async () => {
  await postgres.kill();
  expect(reply(await gw("GET", "/v1/ready", null))).toEqual({ status: 503, body: { error: { code: "unavailable", message: "the gateway's store does not answer" } } });
  expect(reply(await gw("GET", "/v1/live", null))).toEqual({ status: 200, body: { status: "live" } });
  await postgres.start();
  expect(reply(await gw("GET", "/v1/ready", null))).toEqual({ status: 200, body: { status: "ready", store: "postgres" } });
});
