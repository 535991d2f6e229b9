// The erasure runner (server/control/erasure/erasure-runner.ts): the region's progress is
// shown on the request; a region that refuses fails it; one that cannot be reached leaves it
// running with the reason and is asked again; a control plane stopped in the middle drives it
// again at its next start; and once a request ends no file of control.sqlite holds its
// identifiers. The eu region's erase is a stand-in; the end-to-end test uses the real one.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { v1 } from "../../helpers/accounts.ts";
import { awaitErasure, erasureFixture, erasurePath, fakeReport, identifierHashes, isEnded, refuse, replaceErase, type ErasureFixture } from "./fixture.ts";

let service: TestService;
let fixture: ErasureFixture;

beforeAll(async () => {
  service = await startTestService();
  fixture = await erasureFixture(service);
});
afterAll(async () => {
  await service?.close();
});

const create = async (persons: unknown[]) => {
  const reply = await v1(service, fixture.secret, "POST", erasurePath(fixture.projectId), { persons });
  expect(reply.status).toBe(202);
  return reply.body.id as string;
};

/** Every file of control.sqlite (database, WAL, shared memory) as text. */
const controlStoreBytes = () =>
  readdirSync(service.dataDir).filter((name) => name.startsWith("control.sqlite")).map((name) => readFileSync(join(service.dataDir, name)).toString("latin1")).join("\n");

test("the region's progress is shown on the request while it runs", async () => {
  let advance!: () => void;
  let reported!: () => void;
  const stageReported = new Promise<void>((resolve) => (reported = resolve));
  const next = new Promise<void>((resolve) => (advance = resolve));
  replaceErase(service, async (request, onProgress) => {
    onProgress?.("events_parquet", 2, 5);
    reported();
    await next;
    onProgress?.("persons", 1, 1);
    return fakeReport(request);
  });
  const id = await create([{ distinct_id: "progress-1" }]);
  await stageReported;
  const running = await awaitErasure(service, fixture, id, (body) => body.progress !== null);
  expect([running.status, running.progress, running.error]).toEqual(["running", { stage: "events_parquet", done: 2, total: 5 }, null]);
  advance();
  const done = await awaitErasure(service, fixture, id, isEnded);
  expect([done.status, done.progress]).toEqual(["completed", { stage: "persons", done: 1, total: 1 }]);
});

test("a region that refuses the request fails it with the region's reason, and keeps no identifier", async () => {
  replaceErase(service, refuse("person_ids[0] is not a person of this project"));
  const id = await create([{ distinct_id: "refused-subject-7" }]);
  const failed = await awaitErasure(service, fixture, id, isEnded);
  expect([failed.status, failed.error, failed.certificate_url, failed.persons_erased]).toEqual(["failed", "person_ids[0] is not a person of this project", null, null]);
  expect(controlStoreBytes()).not.toContain("refused-subject-7");
  const certificate = await v1(service, fixture.secret, "GET", `${erasurePath(fixture.projectId)}/${id}/certificate`);
  expect([certificate.status, certificate.body.error.message]).toEqual([409, "the erasure is failed: its certificate is issued once it is completed"]);
});

test("a region that cannot be reached leaves the request running with the reason; the next pass completes it", async () => {
  let unreachable = true;
  const asked = replaceErase(service, async (request) => {
    if (unreachable) throw new Error("region eu: connection refused");
    return fakeReport(request);
  });
  const id = await create([{ distinct_id: "unreachable-1" }]);
  const waiting = await awaitErasure(service, fixture, id, (body) => body.error !== null);
  expect([waiting.status, waiting.error]).toEqual(["running", "region eu: connection refused; retrying"]);
  unreachable = false;
  service.ctx.erasure.wake(); // what the retry timer does every erasureRetryIntervalMs
  const done = await awaitErasure(service, fixture, id, isEnded);
  expect([done.status, done.error]).toEqual(["completed", null]);
  expect(asked.filter((request) => request.erasure_id === id)).toHaveLength(2);
});

test("stopped in the middle, the control plane drives the request again at its next start; the real region erases the same identifiers", async () => {
  let interrupt!: () => void;
  let started!: () => void;
  const inRegion = new Promise<void>((resolve) => (started = resolve));
  const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
  const asked = replaceErase(service, async (_request, onProgress) => {
    onProgress?.("events_parquet", 1, 3);
    started();
    await interrupted;
    throw new Error("region eu: the node went away");
  });
  const personId = "0190b6f2-3c4d-7e5f-8a9b-0c1d2e3f4a5c";
  const id = await create([{ distinct_id: "resume-subject-1" }, { person_id: personId }]);
  await inRegion;
  const stopping = service.stop();
  interrupt();
  await stopping;
  expect(asked).toEqual([{ erasure_id: id, project_id: fixture.projectId, data_id: fixture.dataId, environment: "production", person_ids: [personId], distinct_ids: ["resume-subject-1"] }]);

  // The next start drives it with the eu region's own erase.
  service = await startTestService({}, { dataDir: service.dataDir });
  const done = await awaitErasure(service, fixture, id, isEnded);
  expect([done.status, done.error]).toEqual(["completed", null]);
  const { body } = await v1(service, fixture.secret, "GET", `${erasurePath(fixture.projectId)}/${id}/certificate`);
  expect(body.payload.identifier_hashes).toEqual(identifierHashes({ project_id: fixture.projectId, person_ids: [personId], distinct_ids: ["resume-subject-1"] }));
});

test("while a request is open control.sqlite holds its identifiers; once it completes, none of its files does", async () => {
  let finish!: () => void;
  const held = new Promise<void>((resolve) => (finish = resolve));
  replaceErase(service, async (request) => {
    await held;
    return fakeReport(request);
  });
  const subject = "scrubbed-subject-5f3a9c";
  const id = await create([{ distinct_id: subject }]);
  await awaitErasure(service, fixture, id, (body) => body.status === "running");
  expect(controlStoreBytes()).toContain(subject);
  finish();
  await awaitErasure(service, fixture, id, isEnded);
  expect(controlStoreBytes()).not.toContain(subject);
  // Nor after a restart (the WAL was emptied, not left for recovery to replay).
  service = await service.restart();
  expect(controlStoreBytes()).not.toContain(subject);
});
