// A control plane killed (SIGKILL) while an erasure runs resumes it at its next start: the
// service runs as its own process, the request is seen running, the process is killed, and
// started again on the same data directory it completes the request; the person is gone, the
// certificate verifies, and control.sqlite no longer holds the identifier it kept to resume.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnService, type ServiceProcess } from "../../helpers/process.ts";
import { strongPassword } from "../../helpers/accounts.ts";
import { bearer, call, ConsoleClient } from "../../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted } from "../../ingest/helpers.ts";
import { waitFor } from "../../helpers/wait-for.ts";
import { Database } from "bun:sqlite";

const dataDir = mkdtempSync(join(tmpdir(), "erasure-crash-"));
const env = { DATA_DIR: dataDir, REGIONS: "eu" };
let running: ServiceProcess | null = null;

afterAll(() => {
  running?.child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * The request's status as the control plane stores it. Polled from the file rather than the
 * API: polling as fast as answers come would spend the token's 240 calls a minute within a
 * second or two and be answered 429 from then on.
 */
function storedStatus(id: string): string {
  const db = new Database(join(dataDir, "control.sqlite"), { readonly: true });
  try {
    return (db.query("SELECT status FROM erasure_requests WHERE id = ?").get(id) as { status: string }).status;
  } finally {
    db.close();
  }
}

const erasedId = "crash-subject-7c1e";
/** Enough of their events across sealed files that the region's events stage takes a while. */
const eventsOfTheirs = 2_000;

test("killed while an erasure runs, the control plane completes it at its next start", async () => {
  running = await spawnService(env);
  const owner = new ConsoleClient(running.url);
  const signup = await owner.post("/app/auth/signup", { email: "crash-dpo@example.com", name: "DPO", password: strongPassword });
  const created = await owner.post(`/app/orgs/${signup.body.orgs[0].id}/projects`, { name: "Crash", region: "eu" });
  const projectId = created.body.project.id;
  const key = created.body.public_keys[0].key;
  const token = await owner.post("/app/tokens", { name: "dpo", org_id: signup.body.orgs[0].id, scopes: ["persons.erase", "persons:read"] });
  const secret = token.body.secret;
  const start = Date.now() - 3_600_000;
  for (let batch = 0; batch < eventsOfTheirs / 500; batch++) {
    await sendAccepted(running.url, key, Array.from({ length: 500 }, (_, index) =>
      nativeEvent({ distinct_id: index % 2 === 0 ? erasedId : `keeper-${index}`, event: "clicked", timestamp: rfc3339(start + batch * 500 + index), properties: { note: `n-${index}` } })));
  }
  const path = `/v1/projects/${projectId}/erasure-requests`;
  const posted = await call(running.url, "POST", path, { headers: bearer(secret), body: { persons: [{ distinct_id: erasedId }] } });
  expect(posted.status).toBe(202);
  const id = posted.body.id;

  // Seen running, with the region's progress: killed then.
  await waitFor(() => storedStatus(id) !== "pending", 30_000, "the erasure to start");
  const seen = (await call(running.url, "GET", `${path}/${id}`, { headers: bearer(secret) })).body;
  expect([seen.status, seen.progress === null]).toEqual(["running", false]);
  running.child.kill("SIGKILL");
  await running.child.exited;
  const controlFiles = () => readdirSync(dataDir).filter((name) => name.startsWith("control.sqlite")).map((name) => readFileSync(join(dataDir, name)).toString("latin1")).join("");
  expect(controlFiles()).toContain(erasedId);

  running = await spawnService(env);
  await waitFor(() => ["completed", "failed"].includes(storedStatus(id)), 60_000, "the erasure to end");
  const done = (await call(running.url, "GET", `${path}/${id}`, { headers: bearer(secret) })).body;
  expect([done.status, done.error, done.persons_erased]).toEqual(["completed", null, 1]);
  expect(controlFiles()).not.toContain(erasedId);

  const { body: issued } = await call(running.url, "GET", `${path}/${id}/certificate`, { headers: bearer(secret) });
  const verified = await call(running.url, "POST", "/v1/erasure-certificates/verify", { body: { certificate: issued.certificate } });
  expect([verified.status, verified.body.valid, verified.body.payload.removed.events_parquet + verified.body.payload.removed.events_segments + verified.body.payload.removed.events_unsealed]).toEqual([200, true, eventsOfTheirs / 2]);
  const region = await call(running.url, "POST", `/v1/projects/${projectId}/region-token`, { headers: bearer(secret), body: { scopes: ["persons:read"] } });
  const persons = await call(running.url, "GET", `/region/eu/persons?search=${erasedId}`, { headers: bearer(region.body.token) });
  expect([persons.status, persons.body.results]).toEqual([200, []]);
}, 180_000);
