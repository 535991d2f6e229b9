// GET /replays, GET /replays/{id}, GET /replays/{id}/blocks/{name} (replays:read) and the
// project's replay policy, GET and PUT /replays/policy (replays:read / replays:write). Bodies
// and filters: docs/replay.md. Recordings are those of the token's project environment.
import { Elysia, t } from "elysia";
import { existsSync } from "node:fs";
import { jsonResponse, notFound } from "../../http/errors.ts";
import { readJsonBody } from "../../http/body.ts";
import { validateBody } from "../../http/validate.ts";
import { isUuidV7 } from "../../../storage/uuid-index.ts";
import type { ReplayBlockRow, ReplayFilter, ReplayPolicy, ReplayPosition, ReplaySessionRow } from "../../../storage/replay/replay-index.ts";
import { parseRfc3339 } from "../../ingest/rfc3339.ts";
import { sessionIdleMs } from "../../../storage/replay/replay-sweep.ts";
import { replayPlatforms } from "../../ingest/replay/replay-limits.ts";
import type { RegionNode } from "../region-node.ts";
import type { RegionClaims } from "../region-auth.ts";
import { badRequest, regionAccess, type RegionTokenCheck } from "../region-access.ts";
import { decodeCursor, page, pageLimit, textParam } from "../paging.ts";

/** The analytics events `GET /replays/{id}` lists on the session's timeline, at most. */
export const replayTimelineEventsMax = 1000;
const policyBodyBytesMax = 16 * 1024;
/** Not in the spec: the longest minimum duration a policy may ask (an hour). */
export const minDurationMsMax = 3_600_000;
/** Flag keys are at most this long in the control plane. */
const flagKeyLengthMax = 400;
const blockNamePattern = /^\d{1,16}-[0-9a-f]{16}$/;
export const blockCacheControl = "private, max-age=31536000, immutable";

const PolicyRequest = t.Object(
  {
    sample_rate: t.Number({ minimum: 0, maximum: 1 }),
    min_duration_ms: t.Integer({ minimum: 0, maximum: minDurationMsMax }),
    flag_key: t.Union([t.String({ minLength: 1, maxLength: flagKeyLengthMax }), t.Null()]),
  },
  { additionalProperties: false },
);

/** The analytics events of one session, and the sessions in which an event happened (server/region/replays/session-events.ts). */
export interface SessionEventReads {
  sessionsWithEvent(claims: RegionClaims, event: string, fromMs: number, toMs: number): Promise<Set<string>>;
  sessionEvents(claims: RegionClaims, sessionId: string, fromMs: number, toMs: number, limit: number): Promise<{ uuid: string; event: string; timestamp: number; currentUrl: string | null }[]>;
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();

const policyDto = (policy: ReplayPolicy) => ({
  sample_rate: policy.sampleRate,
  min_duration_ms: policy.minDurationMs,
  flag_key: policy.flagKey,
  updated_at: policy.updatedAt === "" ? null : policy.updatedAt,
});

function replayDto(node: RegionNode, session: ReplaySessionRow) {
  return {
    id: session.sessionId,
    distinct_id: session.distinctId,
    person_id: node.store.directory.personOf(session.projectId, session.distinctId)?.id ?? null,
    environment: session.environment,
    platform: session.platform,
    mode: session.mode,
    start_time: iso(session.startMs),
    end_time: iso(session.endMs),
    duration_seconds: (session.endMs - session.startMs) / 1000,
    active_seconds: session.activeSeconds,
    first_url: session.firstUrl,
    urls: session.visits.map((visit) => visit.url),
    page_count: session.pageCount,
    click_count: session.clickCount,
    keypress_count: session.keypressCount,
    console_error_count: session.consoleErrorCount,
    chunk_count: session.chunkCount,
    event_count: session.eventCount,
    size_bytes: session.sizeBytes,
  };
}

const blockDto = (block: ReplayBlockRow) => ({
  name: block.name,
  start_time: iso(block.startMs),
  end_time: iso(block.endMs),
  event_count: block.eventCount,
  size_bytes: block.sizeBytes,
});

function timeParam(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  const parsed = parseRfc3339(value);
  if (parsed === null) throw badRequest(`${name} must be an RFC 3339 date-time`);
  return parsed;
}

function secondsParam(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  const seconds = Number(value);
  if (value.trim() === "" || !Number.isFinite(seconds) || seconds < 0) throw badRequest(`${name} must be a number of seconds, 0 or more`);
  return seconds * 1000;
}

const isReplayPosition = (value: unknown): value is ReplayPosition =>
  typeof value === "object" && value !== null && Number.isSafeInteger((value as ReplayPosition).startMs) && typeof (value as ReplayPosition).sessionId === "string";

/** The session a path names in the token's project environment, or 404. */
function pathSession(node: RegionNode, claims: RegionClaims, id: string): ReplaySessionRow {
  const session = isUuidV7(id) ? node.store.replays.session(claims.projectId, claims.environment, id.toLowerCase()) : null;
  if (!session) throw notFound("replay");
  return session;
}

/** Whether the request takes zstd (a block is sent as stored then). */
const acceptsZstd = (request: Request) => /\bzstd\b/.test(request.headers.get("accept-encoding") ?? "");

export function replayRoutes(node: RegionNode, check: RegionTokenCheck, reads: SessionEventReads) {
  const index = node.store.replays;

  /** The index's filter from the query string (the `event` filter resolved to session ids). */
  async function listFilter(claims: RegionClaims, query: URLSearchParams): Promise<ReplayFilter> {
    const filter: ReplayFilter = { projectId: claims.projectId, environment: claims.environment };
    const personId = textParam(query, "person_id");
    const distinctId = textParam(query, "distinct_id");
    if (personId !== undefined) {
      const person = node.store.directory.currentPerson(claims.projectId, personId);
      filter.distinctIds = person ? node.store.directory.distinctIdsOf(claims.projectId, person.index) : [];
    }
    if (distinctId !== undefined) {
      // A distinct id stands for its person: recordings made under any of the person's ids.
      const person = node.store.directory.personOf(claims.projectId, distinctId);
      const ids = person ? node.store.directory.distinctIdsOf(claims.projectId, person.index) : [distinctId];
      filter.distinctIds = filter.distinctIds ? filter.distinctIds.filter((id) => ids.includes(id)) : ids;
    }
    filter.fromMs = timeParam(query, "from");
    filter.toMs = timeParam(query, "to");
    if (filter.fromMs !== undefined && filter.toMs !== undefined && filter.fromMs > filter.toMs) throw badRequest("from must not be after to");
    filter.durationMinMs = secondsParam(query, "duration_min");
    filter.durationMaxMs = secondsParam(query, "duration_max");
    filter.urlContains = textParam(query, "url");
    const hasErrors = query.get("has_errors");
    if (hasErrors !== null && hasErrors !== "true" && hasErrors !== "false") throw badRequest("has_errors must be true or false");
    filter.hasErrors = hasErrors === "true";
    const platform = query.get("platform");
    if (platform !== null && !replayPlatforms.has(platform)) throw badRequest(`platform must be one of ${[...replayPlatforms].join(", ")}`);
    filter.platform = platform ?? undefined;
    const event = textParam(query, "event");
    if (event !== undefined) {
      // Events of a session happen while it is recorded: the range of sessions that started in [from, to] and lasted up to a day.
      const fromMs = filter.fromMs ?? 0;
      const toMs = (filter.toMs ?? Date.now()) + 86_400_000;
      filter.sessionIds = await reads.sessionsWithEvent(claims, event, fromMs, toMs);
    }
    return filter;
  }

  return new Elysia({ name: "region-replays" })
    .get("/replays/policy", async ({ request }) => {
      const claims = await regionAccess(request, check, "replays:read");
      return jsonResponse(200, policyDto(index.policy(claims.projectId)));
    })
    .put("/replays/policy", async ({ request }) => {
      const claims = await regionAccess(request, check, "replays:write");
      const body = validateBody<{ sample_rate: number; min_duration_ms: number; flag_key: string | null }>(PolicyRequest, await readJsonBody(request, policyBodyBytesMax));
      const policy = { projectId: claims.projectId, sampleRate: body.sample_rate, minDurationMs: body.min_duration_ms, flagKey: body.flag_key, updatedAt: new Date().toISOString() };
      index.setPolicy(policy);
      return jsonResponse(200, policyDto(policy));
    })
    .get("/replays", async ({ request }) => {
      const claims = await regionAccess(request, check, "replays:read");
      const query = new URL(request.url).searchParams;
      const limit = pageLimit(query);
      const cursor = decodeCursor(query, isReplayPosition);
      const filter = await listFilter(claims, query);
      const { minDurationMs } = index.policy(claims.projectId);
      const rows = index.list(filter, cursor, limit + 1, minDurationMs);
      return jsonResponse(200, page(rows, limit, (row) => replayDto(node, row), (row): ReplayPosition => ({ startMs: row.startMs, sessionId: row.sessionId })));
    })
    .get("/replays/:id", async ({ request, params }) => {
      const claims = await regionAccess(request, check, "replays:read");
      const session = pathSession(node, claims, params.id);
      // The session id decides; the margin only bounds the scan. An SDK sends its pageview before the recorder has loaded, and events after the last recorded change.
      const events = await reads.sessionEvents(claims, session.sessionId, session.startMs - sessionIdleMs, session.endMs + sessionIdleMs, replayTimelineEventsMax);
      return jsonResponse(200, {
        ...replayDto(node, session),
        blocks: index.blocks(claims.projectId, claims.environment, session.sessionId).map(blockDto),
        events: events.map((event) => ({ uuid: event.uuid, event: event.event, timestamp: iso(event.timestamp), current_url: event.currentUrl })),
      });
    })
    .get("/replays/:id/blocks/:name", async ({ request, params }) => {
      const claims = await regionAccess(request, check, "replays:read");
      const session = pathSession(node, claims, params.id);
      const block = blockNamePattern.test(params.name) ? index.blocks(claims.projectId, claims.environment, session.sessionId).find((row) => row.name === params.name) : undefined;
      const path = block ? node.replays.blockPath(session.dataId, session.environment, session.sessionId, block.name) : null;
      if (!path || !existsSync(path)) throw notFound("block");
      const etag = `"${block!.name}"`;
      const cacheHeaders = { ETag: etag, "Cache-Control": blockCacheControl, Vary: "Accept-Encoding" };
      if (request.headers.get("if-none-match")?.split(",").some((tag) => tag.trim() === etag)) return new Response(null, { status: 304, headers: cacheHeaders });
      const headers = { "Content-Type": "application/json", ...cacheHeaders };
      if (acceptsZstd(request)) return new Response(Bun.file(path), { headers: { ...headers, "Content-Encoding": "zstd" } });
      return new Response(Bun.zstdDecompressSync(new Uint8Array(await Bun.file(path).arrayBuffer())), { headers });
    });
}
