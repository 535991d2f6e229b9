import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { tokenCallsPerMinuteMax, tokenWritesPerMinuteMax } from "../../server/control/limits.ts";

let service: TestService;
let owner: SignedUpUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Owner");
});
afterAll(async () => { await service.close(); });

test("the limits match the spec", () => {
  expect([tokenCallsPerMinuteMax, tokenWritesPerMinuteMax]).toEqual([240, 30]);
});

test("240 calls per minute per token: the 240th passes, the 241st is 429 with Retry-After", async () => {
  const { secret } = await createToken(owner, ["projects:read"]);
  for (let callNumber = 1; callNumber <= 240; callNumber++) {
    const reply = await v1(service, secret, "GET", "/v1/me");
    if (reply.status !== 200) throw new Error(`call ${callNumber} answered ${reply.status}`);
  }
  const limited = await v1(service, secret, "GET", "/v1/projects");
  expect(limited.status).toBe(429);
  expect(limited.body.error.code).toBe("rate_limited");
  expect(limited.body.error.message).toMatch(/^call limit per token exceeded; retry after \d+ s$/);
  const retryAfter = Number(limited.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  const other = await createToken(owner, ["projects:read"]);
  expect((await v1(service, other.secret, "GET", "/v1/me")).status).toBe(200);
});

test("30 writes per minute per token; dry runs and reads do not count as writes", async () => {
  const { secret } = await createToken(owner, ["projects:write"]);
  const { project } = await createProject(owner, "Busy");
  const path = `/v1/projects/${project.id}`;
  for (let i = 0; i < 5; i++) expect((await v1(service, secret, "PATCH", `${path}?dry_run=true`, { name: `dry ${i}` })).status).toBe(200);
  for (let write = 1; write <= 30; write++) {
    const reply = await v1(service, secret, "PATCH", path, { name: `name ${write}` });
    if (reply.status !== 200) throw new Error(`write ${write} answered ${reply.status}`);
  }
  const limited = await v1(service, secret, "PATCH", path, { name: "one too many" });
  expect(limited.status).toBe(429);
  expect(limited.body.error.message).toMatch(/^write limit per token exceeded; retry after \d+ s$/);
  expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect((await v1(service, secret, "GET", path)).body.name).toBe("name 30");
  expect((await v1(service, secret, "PATCH", `${path}?dry_run=true`, { name: "still fine" })).status).toBe(200);
});

test("a 429 write is not stored under its Idempotency-Key", async () => {
  const { secret } = await createToken(owner, ["projects:write"]);
  const { project } = await createProject(owner, "Limited");
  const path = `/v1/projects/${project.id}`;
  for (let write = 1; write <= 30; write++) await v1(service, secret, "PATCH", path, { name: `n${write}` });
  const limited = await v1(service, secret, "PATCH", path, { name: "later" }, { "Idempotency-Key": "retry-me" });
  expect(limited.status).toBe(429);
  const again = await v1(service, secret, "PATCH", path, { name: "later" }, { "Idempotency-Key": "retry-me" });
  expect(again.status).toBe(429);
  expect(again.headers.get("idempotent-replayed")).toBeNull();
});
