// Issue 41's erasure test, end to end through /v1: a person whose events, properties (an
// email), merges, replay, cohort membership and ingestion warning sit in every store of the
// eu region (the region's seed, test/region/erasure/erasure-fixture.ts) is erased by an
// owner's token; once the request completes and the region compacts, no file of DATA_DIR
// holds their distinct ids, email or property values (control.sqlite included, compressed
// files decompressed), queries no longer count them, and the certificate verifies offline with
// the published JWKS and by the verify route. Events sent later under an erased distinct id
// make a new person.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { compactVerify, createLocalJWKSet } from "jose";
import { memberships, projects, users } from "../../../server/control/db/schema.ts";
import { sha256Hex } from "../../../server/crypto.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { regionTokenFor, strongPassword, v1 } from "../../helpers/accounts.ts";
import { call, ConsoleClient } from "../../helpers/client.ts";
import { nativeEvent, sendAccepted } from "../../ingest/helpers.ts";
import { erasedMark, erasee, eventTotals, filesHolding, regionCall, seedRegion, type Seeded } from "../../region/erasure/erasure-fixture.ts";
import { awaitErasure, erasurePath, isEnded } from "./fixture.ts";

let service: TestService;
let seeded: Seeded;
/** The seeded project's owner's token with persons.erase. */
let eraseSecret: string;

beforeAll(async () => {
  service = await startTestService({ REPLAY_FLUSH_INTERVAL_MS: "0" });
  seeded = await seedRegion(service);
  // The seed's owner signs in and makes a token that may erase.
  const { email } = service.ctx.db.select({ email: users.email }).from(projects).innerJoin(memberships, eq(memberships.orgId, projects.orgId))
    .innerJoin(users, eq(users.id, memberships.userId)).where(eq(projects.id, seeded.projectId)).get()!;
  const owner = new ConsoleClient(service.url);
  expect((await owner.post("/app/auth/login", { email, password: strongPassword })).status).toBe(200);
  const orgId = service.ctx.db.select({ orgId: projects.orgId }).from(projects).where(eq(projects.id, seeded.projectId)).get()!.orgId;
  const token = await owner.post("/app/tokens", { name: "dpo", org_id: orgId, scopes: ["persons.erase"] });
  expect(token.status).toBe(201);
  eraseSecret = token.body.secret;
}, 120_000);
afterAll(async () => {
  await service?.close();
});

/** control.sqlite's files (database, WAL, shared memory) that hold `needle`. */
const controlFilesHolding = (needle: string) =>
  readdirSync(service.dataDir).filter((name) => name.startsWith("control.sqlite") && readFileSync(join(service.dataDir, name)).toString("latin1").includes(needle));

const needles = [erasee.user, erasee.anon, erasee.email, `marmalade-${erasedMark}`, `coupon-${erasedMark}`, `quokka-${erasedMark}-note`, erasedMark];

test("erased through /v1, the person is in no file of DATA_DIR after compaction, no query counts them, and the certificate verifies", async () => {
  const before = await eventTotals(service, seeded);
  expect(filesHolding(service.dataDir, erasee.email).length).toBeGreaterThan(0);

  const fixture = { projectId: seeded.projectId, secret: eraseSecret };
  const created = await v1(service, eraseSecret, "POST", erasurePath(seeded.projectId), { persons: [{ distinct_id: erasee.user }] }, { "idempotency-key": "erase-request-1" });
  expect([created.status, created.body.status, created.body.subject_count]).toEqual([202, "pending", 1]);
  // While the request is open the control plane keeps the identifier it needs to resume.
  const done = await awaitErasure(service, fixture as never, created.body.id, isEnded, 60_000);
  expect([done.status, done.error, done.persons_erased, done.progress]).toEqual(["completed", null, 1, { stage: "report", done: done.progress.total, total: done.progress.total }]);

  // Compaction: the region writes what it buffers into Parquet, and replay chunks into blocks.
  const node = service.nodes.get("eu")!;
  await node.events.flush();
  await node.maintainReplays();
  for (const needle of needles) {
    expect([needle, filesHolding(service.dataDir, needle), controlFilesHolding(needle)]).toEqual([needle, [], []]);
  }

  const after = await eventTotals(service, seeded);
  expect(after).toEqual({ events: before.events - seeded.erasedEvents.length, persons: before.persons - 1 });
  const reader = await regionTokenFor(service, seeded.patSecret, seeded.projectId, ["persons:read"]);
  const search = await regionCall(service, "GET", `/persons?search=${erasedMark}`, reader);
  expect([search.status, search.body.results]).toEqual([200, []]);

  const { body: issued } = await v1(service, eraseSecret, "GET", `${erasurePath(seeded.projectId)}/${created.body.id}/certificate`);
  const hash = (kind: string, id: string) => sha256Hex(`${seeded.projectId}:${kind}:${id}`);
  expect(issued.payload.identifier_hashes).toEqual(expect.arrayContaining([hash("distinct_id", erasee.user), hash("distinct_id", erasee.anon), hash("person_id", seeded.erasedPersonId)]));
  expect([issued.payload.project_id, issued.payload.data_id, issued.payload.region, issued.payload.persons_erased]).toEqual([seeded.projectId, seeded.dataId, "eu", 1]);
  expect(issued.certificate).not.toContain(erasedMark);
  expect(Buffer.from(issued.certificate.split(".")[1], "base64url").toString()).not.toContain(erasedMark);

  const jwks = (await call(service.url, "GET", "/v1/erasure-certificates/keys")).body;
  const offline = await compactVerify(issued.certificate, createLocalJWKSet(jwks), { algorithms: ["EdDSA"] });
  expect(JSON.parse(new TextDecoder().decode(offline.payload))).toEqual(issued.payload);
  const verified = await call(service.url, "POST", "/v1/erasure-certificates/verify", { body: { certificate: issued.certificate } });
  expect([verified.status, verified.body.valid, verified.body.payload]).toEqual([200, true, issued.payload]);
  const [head, , signature] = issued.certificate.split(".");
  const forged = `${head}.${Buffer.from(JSON.stringify({ ...issued.payload, persons_erased: 0 })).toString("base64url")}.${signature}`;
  expect((await call(service.url, "POST", "/v1/erasure-certificates/verify", { body: { certificate: forged } })).body.reason).toBe("bad_signature");
}, 120_000);

test("events sent later under an erased distinct id make a new person", async () => {
  await sendAccepted(service.url, seeded.key, [nativeEvent({ distinct_id: erasee.user, event: "came_back" })]);
  const reader = await regionTokenFor(service, seeded.patSecret, seeded.projectId, ["persons:read"]);
  const search = await regionCall(service, "GET", `/persons?search=${erasee.user}`, reader);
  expect(search.body.results).toHaveLength(1);
  const [person] = search.body.results;
  expect([person.distinct_ids, person.properties, person.id === seeded.erasedPersonId]).toEqual([[erasee.user], {}, false]);
});
