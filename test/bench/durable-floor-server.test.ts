// The durable floor (bench/ingest/durable-floor-server.ts) answers each body only once its
// bytes are in the log: concurrent bodies are all there, whole and each once, when their
// answers arrive.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnService, type ServiceProcess } from "../helpers/process.ts";

let dataDir: string;
let server: ServiceProcess;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "durable-floor-test-"));
  server = await spawnService({ DATA_DIR: dataDir }, ["bench/ingest/durable-floor-server.ts"], "plain");
});

afterAll(async () => {
  server.child.kill("SIGKILL");
  await server.child.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (body: string) => fetch(`${server.url}/batch`, { method: "POST", body });

test("concurrent bodies are each in the log, whole and once, when answered", async () => {
  const bodies = Array.from({ length: 40 }, (_, index) => JSON.stringify({ batch: Array.from({ length: (index % 3) + 1 }, () => ({ n: index })) }));
  const answers = await Promise.all(bodies.map(async (body) => {
    const response = await post(body);
    return { status: response.status, body: await response.json() };
  }));
  expect(answers).toEqual(bodies.map((_, index) => ({ status: 200, body: { accepted: (index % 3) + 1, rejected: [], quota_limited: [] } })));
  const log = readFileSync(join(dataDir, "log"), "utf8");
  expect(log.length).toBe(bodies.reduce((sum, body) => sum + body.length, 0));
  expect(bodies.filter((body) => log.split(body).length === 2)).toEqual(bodies);
});

test("replay bodies (bench/replay) are counted by their chunks", async () => {
  const body = JSON.stringify({ api_key: "none", chunks: [{ seq: 0 }, { seq: 1 }, { seq: 2 }] });
  const response = await post(body);
  expect({ status: response.status, body: await response.json() }).toEqual({ status: 200, body: { accepted: 3, rejected: [], quota_limited: [] } });
  expect(readFileSync(join(dataDir, "log"), "utf8").endsWith(body)).toBe(true);
});
