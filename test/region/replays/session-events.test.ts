// The events joined to recordings through session_id, read for a verified region token's claims:
// events posted through the real ingest of a real service, some compacted into Parquet, some in
// a sealed segment, some seconds old (unsealed), in the token's project and environment only.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, createToken, signUp, v1, type SignedUpUser } from "../../helpers/accounts.ts";
import { bearer, call } from "../../helpers/client.ts";
import { nativeEvent, sendAccepted, type NativeEvent } from "../../ingest/helpers.ts";
import type { RegionClaims } from "../../../server/region/region-auth.ts";
import { concurrentQueriesPerProjectMax } from "../../../server/region/query-service.ts";
import { ApiError } from "../../../server/http/errors.ts";
import type { RegionNode } from "../../../server/region/region-node.ts";
import { snapshotAttemptsMax } from "../../../server/region/sql-service.ts";
import type { PartitionSnapshot } from "../../../storage/event-store.ts";
import { sessionEvents, sessionsWithEvent, type StoredEventsAccess } from "../../../server/region/replays/session-events.ts";

let service: TestService;
let owner: SignedUpUser;
let access: StoredEventsAccess;
let production: RegionClaims;
let staging: RegionClaims;
let elsewhere: RegionClaims;

const hostileEvent = `x'); DROP TABLE events;-- "<script>alert(1)</script>`;
const [s1, s2, s3, elsewhereSession] = [Bun.randomUUIDv7(), Bun.randomUUIDv7(), Bun.randomUUIDv7(), Bun.randomUUIDv7()];
/** Whole seconds an hour ago: ingest keeps them exactly. */
const t0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const at = (offsetMs: number, overrides: NativeEvent) =>
  nativeEvent({ timestamp: new Date(t0 + offsetMs).toISOString(), distinct_id: "viewer", properties: {}, ...overrides });

const compacted = [
  at(0, { event: "$pageview", session_id: s1, properties: { $current_url: "https://shop.example/1" } }),
  at(1000, { event: hostileEvent, session_id: s1 }),
  at(2000, { event: "$pageview", session_id: s2, properties: { $current_url: "https://shop.example/other" } }),
];
const sealed = [
  at(3000, { event: "clicked", session_id: s1, properties: { $current_url: 42 } }),
  at(4000, { event: hostileEvent, session_id: s2 }),
];
const recent = [
  at(5000, { event: "$pageview", session_id: s1, properties: { $current_url: "https://shop.example/2" } }),
  at(6000, { event: "$pageview", properties: { $current_url: "https://shop.example/no-session" } }),
];

/** The claims of a region token for `projectId`'s `environment` as the region verified them (GET /token). */
async function claimsOf(secret: string, projectId: string, environment: string): Promise<RegionClaims> {
  const issued = await v1(service, secret, "POST", `/v1/projects/${projectId}/region-token`, { scopes: ["query:read"], environment });
  expect(issued.status).toBe(200);
  const reply = await call(service.url, "GET", "/region/eu/token", { headers: bearer(issued.body.token) });
  expect([reply.status, reply.body.environment]).toEqual([200, environment]);
  return {
    orgId: owner.orgId, projectId: reply.body.project_id, dataId: reply.body.data_id, environment: reply.body.environment, scopes: reply.body.scopes,
    region: reply.body.region, expiresAt: reply.body.expires_at,
  };
}

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Replay owner");
  const shop = await createProject(owner, "Shop", "eu");
  const other = await createProject(owner, "Elsewhere", "eu");
  const [key, stagingKey, otherKey] = [shop.public_keys[0].key, shop.public_keys[1].key, other.public_keys[0].key];
  const { secret } = await createToken(owner, ["query:read"]);
  production = await claimsOf(secret, shop.project.id, "production");
  staging = await claimsOf(secret, shop.project.id, "staging");
  elsewhere = await claimsOf(secret, other.project.id, "production");
  const node = service.nodes.get("eu")!;
  const queries = service.queries.get("eu")!;
  access = { node, columns: queries.columns, gate: queries.gate };

  // The same session id in another project, and another session in staging: never in production's answers.
  await sendAccepted(service.url, otherKey, [at(0, { event: "$pageview", session_id: s1 }), at(1000, { event: "only_elsewhere", session_id: elsewhereSession })]);
  await sendAccepted(service.url, stagingKey, [at(2500, { event: "$pageview", session_id: s3 })]);
  await sendAccepted(service.url, key, compacted);
  await node.events.flush();
  await sendAccepted(service.url, key, sealed);
  await node.events.seal();
  await sendAccepted(service.url, key, recent);
  const snapshot = await node.events.snapshot(production.dataId, "production");
  expect(snapshot.parts.length).toBeGreaterThanOrEqual(1);
  expect(snapshot.segments.length + (snapshot.buffered ? 1 : 0)).toBeGreaterThanOrEqual(2);
});
afterAll(async () => {
  await service.close();
});

const listed = (event: NativeEvent, currentUrl: string | null) => ({ uuid: event.uuid, event: event.event, timestamp: Date.parse(event.timestamp), currentUrl });
const s1Events = [
  listed(compacted[0]!, "https://shop.example/1"), listed(compacted[1]!, null), listed(sealed[0]!, null), listed(recent[0]!, "https://shop.example/2"),
];

test("sessions that performed an event, from Parquet, a sealed segment and recent rows, the token's partition only", async () => {
  expect(await sessionsWithEvent(access, production, "$pageview", t0, t0 + 60_000)).toEqual(new Set([s1, s2]));
  expect(await sessionsWithEvent(access, production, "clicked", t0, t0 + 60_000)).toEqual(new Set([s1]));
  expect(await sessionsWithEvent(access, production, hostileEvent, t0, t0 + 60_000)).toEqual(new Set([s1, s2]));
  expect(await sessionsWithEvent(access, production, "only_elsewhere", t0, t0 + 60_000)).toEqual(new Set());
  expect(await sessionsWithEvent(access, staging, "$pageview", t0, t0 + 60_000)).toEqual(new Set([s3]));
  expect(await sessionsWithEvent(access, elsewhere, "$pageview", t0, t0 + 60_000)).toEqual(new Set([s1]));
  expect(await sessionsWithEvent(access, elsewhere, "only_elsewhere", t0, t0 + 60_000)).toEqual(new Set([elsewhereSession]));
});

test("the time range is inclusive at both edges", async () => {
  expect(await sessionsWithEvent(access, production, "$pageview", t0 + 2000, t0 + 2000)).toEqual(new Set([s2]));
  expect(await sessionsWithEvent(access, production, "$pageview", t0 + 1, t0 + 1999)).toEqual(new Set());
  expect(await sessionsWithEvent(access, production, "$pageview", t0 + 5000, t0 + 5000)).toEqual(new Set([s1]));
  expect(await sessionsWithEvent(access, production, "$pageview", t0 + 5001, t0 + 60_000)).toEqual(new Set());
  expect(await sessionEvents(access, production, s1, t0 + 1000, t0 + 3000, 1000)).toEqual([s1Events[1]!, s1Events[2]!]);
  expect(await sessionEvents(access, production, s1, t0 + 1, t0 + 2999, 1000)).toEqual([s1Events[1]!]);
  expect(await sessionEvents(access, production, s1, t0 + 5000, t0 + 5000, 1000)).toEqual([s1Events[3]!]);
});

test("a session's events oldest first with their current URL (strings only), across every tier, at most the limit", async () => {
  expect(await sessionEvents(access, production, s1, t0, t0 + 60_000, 1000)).toEqual(s1Events);
  expect(await sessionEvents(access, production, s1, t0, t0 + 60_000, 4)).toEqual(s1Events);
  expect(await sessionEvents(access, production, s1, t0, t0 + 60_000, 3)).toEqual(s1Events.slice(0, 3));
  expect(await sessionEvents(access, production, s1, t0, t0 + 60_000, 1)).toEqual(s1Events.slice(0, 1));
  expect(await sessionEvents(access, production, s1, t0, t0 + 60_000, 0)).toEqual([]);
  expect(await sessionEvents(access, production, s2, t0, t0 + 60_000, 1000)).toEqual([listed(compacted[2]!, "https://shop.example/other"), listed(sealed[1]!, null)]);
  expect(await sessionEvents(access, production, Bun.randomUUIDv7(), t0, t0 + 60_000, 1000)).toEqual([]);
});

test("a session id in upper case finds the session (ingest stores them in lower case)", async () => {
  expect(await sessionEvents(access, production, s1.toUpperCase(), t0, t0 + 60_000, 1000)).toEqual(s1Events);
});

test("another project's or environment's events of the same session never appear", async () => {
  expect(await sessionEvents(access, production, s3, t0, t0 + 60_000, 1000)).toEqual([]);
  expect(await sessionEvents(access, production, elsewhereSession, t0, t0 + 60_000, 1000)).toEqual([]);
  expect((await sessionEvents(access, elsewhere, s1, t0, t0 + 60_000, 1000)).map((event) => event.event)).toEqual(["$pageview"]);
  expect(await sessionEvents(access, staging, s1, t0, t0 + 60_000, 1000)).toEqual([]);
});

test("hostile session ids and event names are only data", async () => {
  for (const hostile of [`' OR '1'='1`, `"; DROP TABLE events; --`, "%", "*", "", `${s1}'`, s1.slice(0, -1)]) {
    expect(await sessionEvents(access, production, hostile, t0, t0 + 60_000, 1000)).toEqual([]);
    expect(await sessionsWithEvent(access, production, hostile, t0, t0 + 60_000)).toEqual(new Set());
  }
});

test("a read counts as one of the project's concurrent queries", async () => {
  const held = Array.from({ length: concurrentQueriesPerProjectMax }, () => access.gate.tryAcquire(production.projectId)!);
  try {
    const refused = await sessionEvents(access, production, s1, t0, t0 + 60_000, 10).then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect([(refused as ApiError).status, (refused as ApiError).code]).toEqual([429, "too_many_concurrent_queries"]);
    // Another project is not held back.
    expect(await sessionsWithEvent(access, elsewhere, "$pageview", t0, t0 + 60_000)).toEqual(new Set([s1]));
  } finally {
    for (const release of held) release();
  }
  expect(await sessionEvents(access, production, s1, t0, t0 + 60_000, 1)).toEqual(s1Events.slice(0, 1));
});

/** The node with snapshots that name, the first `vanishing` times, a part a compaction has removed since. */
function compactedWhileRead(vanishing: number) {
  const node = service.nodes.get("eu")!;
  let taken = 0;
  const events = Object.create(node.events, {
    snapshot: {
      value: async (dataId: number, environment: string): Promise<PartitionSnapshot> => {
        const snapshot = await node.events.snapshot(dataId, environment);
        if (++taken > vanishing) return snapshot;
        const gone = { ...snapshot.parts[0]!, file: `${snapshot.parts[0]!.file}.compacted-away` };
        return { ...snapshot, parts: [gone, ...snapshot.parts] };
      },
    },
  });
  const faulty: StoredEventsAccess = { ...access, node: Object.create(node, { events: { value: events } }) as RegionNode };
  return { faulty, taken: () => taken };
}

test("a snapshot whose file a compaction removed while it was read is taken again, up to the attempts' limit", async () => {
  const once = compactedWhileRead(1);
  expect(await sessionEvents(once.faulty, production, s1, t0, t0 + 60_000, 1000)).toEqual(s1Events);
  expect(once.taken()).toBe(2);
  const always = compactedWhileRead(Infinity);
  const failed = await sessionsWithEvent(always.faulty, production, "$pageview", t0, t0 + 60_000).then(() => null, (error: NodeJS.ErrnoException) => error.code);
  expect([failed, always.taken()]).toEqual(["ENOENT", snapshotAttemptsMax]);
  // The failed read gave its place among the project's queries back.
  const places = Array.from({ length: concurrentQueriesPerProjectMax }, () => access.gate.tryAcquire(production.projectId));
  for (const release of places) release?.();
  expect(places.every((release) => release !== null)).toBe(true);
});
