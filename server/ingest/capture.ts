// POST /e and /batch, native format: authenticate the public key, decode, validate each
// event, apply the ingest effects, append the accepted events to the write-ahead log, and
// answer only after the fsync that covers them. Nothing unpersisted is acknowledged.
import { ApiError, unavailable } from "../http/errors.ts";
import { requestMeta, type RequestMeta } from "../http/client-meta.ts";
import { WalRecordTooLargeError, WalUnavailableError, type WalPosition } from "../../storage/wal.ts";
import { encodeBatchRecord, type AcceptedEvent, type Location } from "../../storage/event-record.ts";
import { holdsIp, withoutIpDeep } from "../../storage/ip-property.ts";
import type { RegistryKey } from "../../storage/region-store.ts";
import type { RegionNode } from "../region/region-node.ts";
import { ingestMalformed, ingestTooLarge, type DecodedBody } from "./decode-body.ts";
import { isPlainObject, nestsWithin, sentUuid } from "./json-values.ts";
import { eventUserAgent, keptBySampling, UserAgentKinds } from "./event-effects.ts";
import { EventOrigins } from "./event-origin.ts";
import { batchEventsMax, batchEventsMin, eventBytesMax, eventNestingMax } from "./limits.ts";
import { parseRfc3339 } from "./rfc3339.ts";
import { validateEvent, type ValidEvent } from "./validate-event.ts";
import { duplicateMessage, tooDeepMessage, tooLargeMessage, type Rejection } from "./rejections.ts";
import { walBody } from "./wal-body.ts";
import { SQLiteError } from "bun:sqlite";

/** How long a client should wait before retrying when storage refuses writes. */
export const storageRetryAfterSeconds = 5;
const dayMs = 86_400_000;

export interface IngestResponse {
  accepted: number;
  rejected: Rejection[];
  quota_limited: string[];
}

/** The project key of a request: 401 when missing, unknown, revoked or of another region; 403 for an origin not on its allowlist. */
export function authenticate(node: RegionNode, apiKey: unknown, origin: string | null): RegistryKey {
  if (typeof apiKey !== "string" || apiKey === "") throw new ApiError(401, "unauthorized", "api_key is missing");
  const key = node.store.findKey(apiKey);
  if (!key) throw new ApiError(401, "unauthorized", `api_key is not a key of region ${node.code}`);
  if (key.revokedAt) throw new ApiError(401, "unauthorized", "api_key has been revoked");
  if (origin !== null && key.allowedOrigins.length > 0 && !key.allowedOrigins.includes(origin)) {
    throw new ApiError(403, "forbidden", `origin ${origin} is not allowed for this key`);
  }
  return key;
}

/** The share of traffic an event stands for: a rate the client already applied, times ours. */
function sampleRate(properties: Record<string, unknown>, keepRatio: number): number {
  const clientRate = properties.$sample_rate;
  const previous = typeof clientRate === "number" && clientRate > 0 && clientRate <= 1 ? clientRate : 1;
  return previous * keepRatio;
}

/** A body of the native format: `{api_key, batch}` in which every event has a `lib` object (an empty batch included). */
export function isNativeBody(json: unknown): boolean {
  return isPlainObject(json) && Array.isArray(json.batch) && json.batch.every((event) => isPlainObject(event) && isPlainObject(event.lib));
}

/** A native body (isNativeBody) after decoding. */
export async function captureNative(node: RegionNode, request: Request, trustProxy: boolean, decoded: DecodedBody, receivedAt: number): Promise<IngestResponse> {
  const json = decoded.json as { api_key?: unknown; sent_at?: unknown; batch: unknown[] };
  const key = authenticate(node, json.api_key, request.headers.get("origin"));
  const batch = json.batch;
  if (batch.length > batchEventsMax) throw new ApiError(413, "payload_too_large", `batch has ${batch.length} events; at most ${batchEventsMax}`);
  if (batch.length < batchEventsMin) throw ingestMalformed(`batch must contain ${batchEventsMin} to ${batchEventsMax} events`);
  let sentAt: number | null = null;
  if (json.sent_at !== undefined && json.sent_at !== null) {
    sentAt = parseRfc3339(json.sent_at);
    if (sentAt === null) throw ingestMalformed("sent_at must be an RFC 3339 date-time");
  }
  return ingestEvents(node, key, { batch, body: decoded.bytes, sentAt, receivedAt, meta: requestMeta(request, trustProxy) });
}

/** What a drop-in format made of a request's items. */
export interface MappedEvents {
  /** Native events. */
  batch: Record<string, unknown>[];
  /** The item each native event was mapped from (a warning's example shows what was sent). */
  sources: unknown[];
  /** Items the mapping refused, each with its rejection. */
  refused: { rejection: Rejection; source: unknown }[];
}

/**
 * Events a drop-in format mapped to native ones: down the native path as one batch, with the
 * items the mapping itself refused reported (and counted as warnings) first.
 */
export async function ingestMapped(node: RegionNode, key: RegistryKey, mapped: MappedEvents, receivedAt: number, meta: RequestMeta): Promise<IngestResponse> {
  const rejected = mapped.refused.map(({ rejection, source }) => {
    node.warnings.record(key, rejection, source, receivedAt);
    return rejection;
  });
  const { batch, sources } = mapped;
  if (batch.length === 0) return { accepted: 0, rejected, quota_limited: [] };
  const body = new TextEncoder().encode(JSON.stringify({ batch }));
  const result = await ingestEvents(node, key, { batch, sources, body, sentAt: null, receivedAt, meta });
  return { ...result, rejected: [...rejected, ...result.rejected] };
}

/** Native events ready for the common path: `body` is JSON text whose `batch` member is `batch` (the WAL keeps it as is when it can: wal-body.ts). */
export interface NativeBatch {
  batch: unknown[];
  /** What each event of `batch` was mapped from, for drop-in formats (warnings' examples show it); else `batch` itself. */
  sources?: readonly unknown[];
  body: Uint8Array;
  /** The request's sent_at (epoch ms) for clock-skew correction, or null. */
  sentAt: number | null;
  receivedAt: number;
  meta: RequestMeta;
  /** Never sampled past a spend cap (revenue webhooks: money must add up exactly). */
  keepAll?: boolean;
}

/**
 * The path every ingest format ends on: rate limit, per-event validation, duplicates, ingest
 * effects, persons, and the WAL append; answers once the accepted events are durable.
 */
export async function ingestEvents(node: RegionNode, key: RegistryKey, { batch, sources, body, sentAt, receivedAt, meta, keepAll }: NativeBatch): Promise<IngestResponse> {
  const retryAfter = node.rates.take(key.projectId, batch.length);
  if (retryAfter > 0) {
    throw new ApiError(429, "rate_limited", "ingest rate limit of the project exceeded", { "Retry-After": String(retryAfter) });
  }

  const origins = new EventOrigins(meta.ip, node.datacenterRanges);
  const clock = { now: receivedAt, sentAt, oldestAllowed: receivedAt - key.retentionDays * dayMs, retentionDays: key.retentionDays };
  const keepRatio = keepAll ? 1 : node.keepRatio(key.projectId);
  const checkSizes = body.byteLength > eventBytesMax;
  const response: IngestResponse = { accepted: 0, rejected: [], quota_limited: keepRatio < 1 ? ["events"] : [] };
  /** Reports event `index` rejected, and counts it as an ingestion warning of its project. */
  const reject = (index: number, rejection: Rejection) => {
    response.rejected.push(rejection);
    node.warnings.record(key, rejection, (sources ?? batch)[index], receivedAt);
  };
  // A valid event whose uuid an earlier valid event of the batch had is dropped without a word.
  // Found without a set per batch (hashing every uuid once more): the uuid index refuses such a
  // uuid anyway, so the batch's uuids are searched only then; a crawler's uuid, which the
  // index never sees, is remembered apart.
  const validUuids: string[] = [];
  let crawlerUuids: Set<string> | null = null;
  /**
   * Whether a uuid an earlier request had was met (rejected as `duplicate`). That request's WAL
   * write may still be under way (a retry racing its original): if it fails, its uuids leave the
   * index, and this request must not have called them stored.
   */
  let metKnown = false;
  const removalsBefore = node.uuids.removals;
  const agents = new UserAgentKinds();
  const accepted: ValidEvent[] = [];
  /** Per accepted event: what the WAL record says of it when sampling keeps it (its person comes later). */
  const decisions: (AcceptedEvent | null)[] = [];
  /** Whether an event has `$ip` anywhere: then the WAL gets a body without it (wal-body.ts). */
  let anyIp = false;

  for (let index = 0; index < batch.length; index++) {
    const raw = batch[index];
    // Before anything writes the event back as JSON (the size check here, storage later).
    if (!nestsWithin(raw, eventNestingMax)) {
      reject(index, { uuid: sentUuid(raw), reason: "invalid", message: tooDeepMessage });
      continue;
    }
    if (checkSizes && new TextEncoder().encode(JSON.stringify(raw)).byteLength > eventBytesMax) {
      reject(index, { uuid: sentUuid(raw), reason: "too_large", message: tooLargeMessage });
      continue;
    }
    const verdict = validateEvent(raw, clock);
    if (!verdict.ok) {
      reject(index, { uuid: verdict.uuid, reason: verdict.reason, message: verdict.message });
      continue;
    }
    const event = verdict.event;
    // The location reads the event's own $ip; nothing after it (persons, the WAL) may see one.
    const sentProperties = event.properties;
    if (holdsIp(raw as Record<string, unknown>)) {
      anyIp = true;
      event.properties = withoutIpDeep(event.properties);
      event.set = withoutIpDeep(event.set);
      event.setOnce = withoutIpDeep(event.setOnce);
    }
    validUuids.push(event.uuid);
    if (crawlerUuids?.has(event.uuid)) continue;
    const agent = agents.of(eventUserAgent(event.properties, meta.userAgent));
    if (agent.crawler) {
      (crawlerUuids ??= new Set()).add(event.uuid);
      continue;
    }
    if (!node.uuids.add(key.projectId, event.uuid)) {
      const inBatchBefore = validUuids.indexOf(event.uuid) < validUuids.length - 1;
      if (!inBatchBefore) {
        // The uuid as the client sent it (the index compares it lowercased), like other rejections.
        reject(index, { uuid: (raw as { uuid: string }).uuid, reason: "duplicate", message: duplicateMessage });
        metKnown = true;
      }
      continue;
    }
    accepted.push(event);
    node.planViolations.check(key, event.event, event.properties, (sources ?? batch)[index], receivedAt);
    const kept = keptBySampling(event.uuid, keepRatio);
    if (!kept) {
      decisions.push(null);
      continue;
    }
    const origin = origins.of(sentProperties);
    decisions.push({
      index,
      timestamp: event.timestamp,
      sampleRate: sampleRate(event.properties, keepRatio),
      // Datacenter addresses are suspect for browsers only (spec 2, Events): a server library
      // posting its users' events from the cloud is what it should be.
      isSuspect: agent.headless || (agent.browser && origin.datacenter),
      personIndex: 0,
      location: origin.location,
    });
  }
  response.accepted = accepted.length;
  if (accepted.length > 0) await writeAccepted(node, key, accepted, decisions, { batch, body, anyIp, locations: origins.locations }, receivedAt);
  if (metKnown) {
    // Every earlier write was queued in the WAL before this request ran (accepting an event and
    // queueing its write happen in one turn of the event loop). Once they settle, the uuids met
    // are stored unless some write failed meanwhile and took its uuids out of the index (a
    // later request may have put one back, for a write not settled yet): then 503, and the
    // client's retry finds out. No registry of writes in flight: a long-lived one holding each
    // request's events made the garbage collector keep them (measured: 6% of throughput).
    await node.wal.settled();
    if (node.uuids.removals !== removalsBefore) throw storageUnavailable();
  }
  if (accepted.length > 0) {
    // Durable already; waiting here only slows clients down while the storage worker catches up.
    await node.events.backlogWithinLimit();
  }
  return response;
}

const storageUnavailable = () => unavailable("storage cannot accept writes right now", storageRetryAfterSeconds);

/** The request's events as parsed and as JSON text, whether an event to store has `$ip`, and their locations. */
interface RequestEvents {
  batch: readonly unknown[];
  body: Uint8Array;
  anyIp: boolean;
  locations: Location[];
}

/** Persons, the WAL record and its append for the accepted events; resolves once they are durable. */
async function writeAccepted(
  node: RegionNode, key: RegistryKey, accepted: ValidEvent[], decisions: (AcceptedEvent | null)[], request: RequestEvents, receivedAt: number,
): Promise<void> {
  let logged: { record: [Uint8Array, Uint8Array]; position: WalPosition } | null = null;
  /** What this request adds to the billing counters: written before the WAL append, so its group commit syncs it too. */
  let counted: { eventsReceived: number; eventsStored: number; replayRecordings: number } | null = null;
  try {
    // Identity effects apply to every accepted event, sampled out or not: a merge or a $set
    // is a fact about the person, whatever share of their events is kept.
    const personIndexes = node.store.persons.attribute(key.projectId, accepted);
    const toStore: AcceptedEvent[] = [];
    decisions.forEach((decision, position) => {
      if (!decision) return;
      decision.personIndex = personIndexes[position]!;
      toStore.push(decision);
    });
    const delta = { eventsReceived: accepted.length, eventsStored: toStore.length, replayRecordings: 0 };
    node.store.usage.add(key.projectId, receivedAt, delta);
    // Only once added: a failed add must not be taken back below.
    counted = delta;
    if (toStore.length > 0) {
      const record = encodeBatchRecord({
        projectId: key.projectId,
        dataId: key.dataId,
        environment: key.environment,
        receivedAt,
        locations: request.locations,
        groupTypes: Object.fromEntries(node.store.persons.groupTypes(key.projectId)),
        events: toStore,
        body: walBody(request.batch, request.body, toStore, request.anyIp),
      });
      logged = { record, position: await node.wal.append(record) };
    }
  } catch (error) {
    // Nothing of the request is stored: its uuids may come again, and its counts are taken back.
    for (const event of accepted) node.uuids.remove(key.projectId, event.uuid);
    if (counted) node.store.usage.add(key.projectId, receivedAt, { eventsReceived: -counted.eventsReceived, eventsStored: -counted.eventsStored, replayRecordings: 0 });
    if (error instanceof WalUnavailableError || error instanceof SQLiteError) throw storageUnavailable();
    if (error instanceof WalRecordTooLargeError) throw ingestTooLarge();
    throw error;
  }
  // Durable from here on, whatever happens next: a retry must find the uuids taken.
  if (logged) {
    node.events.add(...logged.record, logged.position);
    // Only now: a live stream must never show an event that a crash could still take back.
    node.live.publish(key.projectId, key.environment, accepted, decisions, request.locations, receivedAt, request.body.byteLength / request.batch.length);
  }
}
