// The gateway's routes that need no key, and its root key's life: made on first start when
// none is configured (kept in the data directory, mode 0600, printed once) and the same after a
// restart; readiness fails with 503 when the store does not answer, while liveness holds.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { call } from "../helpers/client.ts";
import { reply } from "../helpers/replies.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { gatewayRootKeyFile } from "../../server/gateway/gateway.ts";

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

const gw = (path: string, key?: string) => call(service.url, "GET", `/gateway${path}`, { headers: key ? { apikey: key } : {} });

test("GET / says what the service is; live and ready answer", async () => {
  expect(reply(await gw("/"))).toEqual({
    status: 200,
    body: {
      service: "messaging-gateway",
      description: "Registers numbers on a messaging network, queues outbound messages and delivers inbound ones by webhook. Every route but this one, /v1/live, /v1/ready and /v1/about needs an apikey header.",
    },
  });
  expect(reply(await gw("/v1/live"))).toEqual({ status: 200, body: { status: "live" } });
  expect(reply(await gw("/v1/ready"))).toEqual({ status: 200, body: { status: "ready", store: "sqlite" } });
});

test("GET /v1/about names the build and every production package with its licence", async () => {
  const { status, body } = await gw("/v1/about");
  const pkg = JSON.parse(readFileSync(join(import.meta.dir, "../../package.json"), "utf8"));
  const head = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: join(import.meta.dir, "../..") }).stdout.toString().trim();
  expect(status).toBe(200);
  expect([body.name, body.version, body.commit]).toEqual([pkg.name, pkg.version, head]);
  const elysia = body.dependencies.find((dependency: { name: string }) => dependency.name === "elysia");
  expect(elysia).toEqual({ name: "elysia", version: JSON.parse(readFileSync(join(import.meta.dir, "../../node_modules/elysia/package.json"), "utf8")).version, license: "MIT" });
  expect(body.notice).toContain(`elysia ${elysia.version}: MIT`);
  // Development-only packages do not ship, so they are not in the notice.
  expect(body.dependencies.some((dependency: { name: string }) => dependency.name === "playwright-core")).toBe(false);
});

test("with no root key configured, one is made on first start, kept with mode 0600, and the same after a restart", async () => {
  const file = join(service.dataDir, gatewayRootKeyFile);
  const key = readFileSync(file, "utf8").trim();
  expect(key).toMatch(/^gw_root_[0-9A-Za-z]{40}$/);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(service.gateway.createdRootKey).toBe(key);
  expect((await gw("/v1/projects", key)).status).toBe(200);
  service = await service.restart();
  expect(service.gateway.createdRootKey).toBeNull();
  expect((await gw("/v1/projects", key)).status).toBe(200);
});

test("ready is 503 when the store does not answer; live stays 200", async () => {
  await service.gateway.ctx.database.sql.close();
  expect(reply(await gw("/v1/ready"))).toEqual({ status: 503, body: { error: { code: "unavailable", message: "the gateway's store does not answer" } } });
  expect(reply(await gw("/v1/live"))).toEqual({ status: 200, body: { status: "live" } });
});
