// What the live events tests share: a service with an owner whose personal access token issues
// region tokens, projects with their public keys and tokens, the route called for JSON or for
// a stream, and what the route shows of an event the test sent.
import { expect } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern, uuidPattern, type Reply } from "../helpers/client.ts";
import { openEventStream, sseWaitMs, type SseConnection, type SseEvent, type SseReader } from "../helpers/sse.ts";
import { nativeEvent, type NativeEvent } from "../ingest/helpers.ts";
import type { LiveHub } from "../../server/region/live/live-hub.ts";

export interface TestProject {
  id: string;
  keys: Record<string, string>;
  /** Region tokens of its production environment: query:read, and query:read with persons.pii. */
  query: string;
  pii: string;
}

export interface LiveFixture {
  service: TestService;
  owner: SignedUpUser;
  /** The owner's personal access token (query:read, persons:read, persons.pii). */
  patSecret: string;
  /** The eu region's hub. */
  hub: LiveHub;
  newProject(name: string): Promise<TestProject>;
  /** GET /events/live read whole (a JSON answer, or an error); no token with null. */
  liveJson(token: string | null, query?: string, headers?: Record<string, string>): Promise<Reply>;
  /** GET /events/live as an event stream (200 checked). */
  openLive(token: string, query?: string, headers?: Record<string, string>): Promise<SseConnection>;
  /** The id of the environment's event number `seq`. */
  id(seq: number): string;
  stagingToken(projectId: string, scopes: string[]): Promise<string>;
}

export const livePath = (query = "") => `/region/eu/events/live${query}`;

export async function startLiveFixture(): Promise<LiveFixture> {
  const service = await startTestService();
  const owner = await signUp(service, "Live owner");
  const patSecret = (await createToken(owner, ["query:read", "persons:read", "persons.pii"])).secret;
  const hub = service.nodes.get("eu")!.live;
  return {
    service,
    owner,
    patSecret,
    hub,
    async newProject(name) {
      const created = await createProject(owner, name, "eu");
      const id = created.project.id;
      return {
        id,
        keys: Object.fromEntries(created.public_keys.map((key: { environment: string; key: string }) => [key.environment, key.key])),
        query: await regionTokenFor(service, patSecret, id, ["query:read"]),
        pii: await regionTokenFor(service, patSecret, id, ["query:read", "persons.pii"]),
      };
    },
    liveJson: (token, query = "", headers = {}) =>
      call(service.url, "GET", livePath(query), { headers: { ...(token === null ? {} : bearer(token)), ...headers } }),
    openLive: (token, query = "", headers = {}) => openEventStream(service.url + livePath(query), { ...bearer(token), ...headers }),
    id: (seq) => `${hub.epoch}-${seq}`,
    async stagingToken(projectId, scopes) {
      const reply = await v1(service, patSecret, "POST", `/v1/projects/${projectId}/region-token`, { scopes, environment: "staging" });
      expect(reply.status).toBe(200);
      return reply.body.token;
    },
  };
}

let clock = Date.now() - 3_600_000;
/** An event a second after the previous one, with the fields given. */
export const at = (overrides: NativeEvent = {}) => nativeEvent({ timestamp: new Date((clock += 1000)).toISOString(), ...overrides });

/** What the route shows of a native event sent from the test (no location: the test's address is loopback). */
export function shown(sent: NativeEvent, personId: unknown = expect.stringMatching(uuidPattern)) {
  return {
    uuid: sent.uuid,
    event: sent.event,
    timestamp: new Date(sent.timestamp).toISOString(),
    received_at: expect.stringMatching(isoPattern),
    distinct_id: sent.distinct_id,
    person_id: personId,
    anon_id: sent.anon_id ?? null,
    session_id: sent.session_id ?? null,
    window_id: sent.window_id ?? null,
    lib: sent.lib,
    consent: sent.consent ?? "granted",
    groups: sent.groups ?? null,
    $set: sent.$set ?? null,
    $set_once: sent.$set_once ?? null,
    properties: sent.properties,
    location: { country: null, region: null, city: null, timezone: null },
    is_suspect: false,
    sample_rate: 1,
  };
}

/** An SSE event of the stream: its type, id and parsed data. */
export const parsed = (event: SseEvent) => ({ type: event.type, id: event.lastEventId, data: JSON.parse(event.data) });

export async function nextEvents(stream: SseReader, count: number) {
  const events = [];
  for (let i = 0; i < count; i++) events.push(parsed(await stream.next()));
  return events;
}

/** `promise`, or a failure naming `what` when it has not settled within sseWaitMs. */
export async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${sseWaitMs} ms`)), sseWaitMs)));
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
