// POST /e and /batch, native format: authenticate the public key, decode, validate each
// event, apply the ingest effects, append the accepted events to the write-ahead log, and
// answer only after the fsync that covers them. Nothing unpersisted is acknowledged.
import { ApiError } from "../http/errors.ts";
import { requestMeta } from "../http/client-meta.ts";
import { WalUnavailableError } from "../../storage/wal.ts";
import { encodeBatchRecord, type StoredEvent } from "../../storage/event-record.ts";
import type { RegistryKey } from "../../storage/region-store.ts";
import type { RegionNode } from "../region/region-node.ts";
import { decodeIngestBody, ingestMalformed, ingestTooLarge } from "./decode-body.ts";
import { eventUserAgent, isHeadlessBrowser, isSelfDeclaredCrawler, keptBySampling, locate } from "./event-effects.ts";
import { batchEventsMax, batchEventsMin, eventBytesMax } from "./limits.ts";
import { parseRfc3339, validateEvent, type RejectReason, type ValidEvent } from "./validate-event.ts";

/** How long a client should wait before retrying when storage refuses writes. */
export const storageRetryAfterSeconds = 5;
const dayMs = 86_400_000;

export interface IngestResponse {
  accepted: number;
  rejected: { uuid: string | null; reason: RejectReason }[];
  quota_limited: string[];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function authenticate(node: RegionNode, apiKey: unknown, origin: string | null): RegistryKey {
  if (typeof apiKey !== "string" || apiKey === "") throw new ApiError(401, "unauthorized", "api_key is missing");
  const key = node.store.findKey(apiKey);
  if (!key) throw new ApiError(401, "unauthorized", `api_key is not a key of region ${node.code}`);
  if (key.revokedAt) throw new ApiError(401, "unauthorized", "api_key has been revoked");
  if (origin !== null && key.allowedOrigins.length > 0 && !key.allowedOrigins.includes(origin)) {
    throw new ApiError(403, "forbidden", `origin ${origin} is not allowed for this key`);
  }
  return key;
}

function stored(event: ValidEvent, keepRatio: number, requestUserAgent: string | null, ip: string | null): StoredEvent {
  const { $ip: _droppedIp, ...properties } = event.properties;
  const location = properties.$geoip_disable === true ? locate(null) : locate(ip);
  const previousRate = typeof properties.$sample_rate === "number" && properties.$sample_rate > 0 && properties.$sample_rate <= 1
    ? properties.$sample_rate
    : 1;
  const sampleRate = previousRate * keepRatio;
  if (sampleRate < 1) properties.$sample_rate = sampleRate;
  return {
    uuid: event.uuid,
    event: event.event,
    timestamp: event.timestamp,
    distinct_id: event.distinctId,
    anon_id: event.anonId,
    session_id: event.sessionId,
    window_id: event.windowId,
    lib_name: event.libName,
    lib_version: event.libVersion,
    consent: event.consent,
    sample_rate: sampleRate,
    geo_country: location.country,
    geo_region: location.region,
    geo_city: location.city,
    geo_timezone: location.timezone,
    is_suspect: isHeadlessBrowser(eventUserAgent(properties, requestUserAgent)),
    groups: event.groups,
    set: event.set,
    set_once: event.setOnce,
    properties,
  };
}

export async function captureNative(node: RegionNode, request: Request, trustProxy: boolean): Promise<IngestResponse> {
  const receivedAt = Date.now();
  const { json, jsonBytes } = await decodeIngestBody(request);
  if (!isPlainObject(json)) throw ingestMalformed("body must be a JSON object {api_key, sent_at, batch}");
  const key = authenticate(node, json.api_key, request.headers.get("origin"));

  const batch = json.batch;
  if (!Array.isArray(batch)) throw ingestMalformed("batch must be an array of events");
  if (batch.length > batchEventsMax) throw new ApiError(413, "payload_too_large", `batch has ${batch.length} events; at most ${batchEventsMax}`);
  if (batch.length < batchEventsMin) throw ingestMalformed(`batch must contain ${batchEventsMin} to ${batchEventsMax} events`);
  if (!batch.every((event) => isPlainObject(event) && isPlainObject(event.lib))) {
    throw ingestMalformed("every event of a native batch needs a lib object {name, version}");
  }
  let sentAt: number | null = null;
  if (json.sent_at !== undefined && json.sent_at !== null) {
    sentAt = parseRfc3339(json.sent_at);
    if (sentAt === null) throw ingestMalformed("sent_at must be an RFC 3339 date-time");
  }

  const retryAfter = node.rates.take(key.projectId, batch.length);
  if (retryAfter > 0) {
    throw new ApiError(429, "rate_limited", "ingest rate limit of the project exceeded", { "Retry-After": String(retryAfter) });
  }

  const meta = requestMeta(request, trustProxy);
  const clock = { now: receivedAt, sentAt, oldestAllowed: receivedAt - key.retentionDays * dayMs };
  const keepRatio = node.keepRatio(key.projectId);
  const checkSizes = jsonBytes > eventBytesMax;
  const response: IngestResponse = { accepted: 0, rejected: [], quota_limited: keepRatio < 1 ? ["events"] : [] };
  const seenInBatch = new Set<string>();
  const reserved: string[] = [];
  const toStore: StoredEvent[] = [];

  for (const raw of batch) {
    if (checkSizes && new TextEncoder().encode(JSON.stringify(raw)).byteLength > eventBytesMax) {
      const uuid = (raw as Record<string, unknown>).uuid;
      response.rejected.push({ uuid: typeof uuid === "string" ? uuid : null, reason: "too_large" });
      continue;
    }
    const verdict = validateEvent(raw, clock);
    if (!verdict.ok) {
      response.rejected.push({ uuid: verdict.uuid, reason: verdict.reason });
      continue;
    }
    const event = verdict.event;
    if (seenInBatch.has(event.uuid)) continue;
    seenInBatch.add(event.uuid);
    if (isSelfDeclaredCrawler(eventUserAgent(event.properties, meta.userAgent))) continue;
    if (!node.uuids.add(key.projectId, event.uuid)) {
      response.rejected.push({ uuid: event.uuid, reason: "duplicate" });
      continue;
    }
    reserved.push(event.uuid);
    response.accepted++;
    if (keptBySampling(event.uuid, keepRatio)) toStore.push(stored(event, keepRatio, meta.userAgent, meta.ip));
  }

  if (toStore.length > 0) {
    const record = {
      project_id: key.projectId,
      data_id: key.dataId,
      environment: key.environment,
      received_at: receivedAt,
      events: toStore,
    };
    try {
      const bytes = encodeBatchRecord(record);
      const position = await node.wal.append(bytes);
      node.events.add(bytes, position);
    } catch (error) {
      for (const uuid of reserved) node.uuids.remove(key.projectId, uuid);
      if (error instanceof WalUnavailableError) {
        throw new ApiError(503, "unavailable", "storage cannot accept writes right now", { "Retry-After": String(storageRetryAfterSeconds) });
      }
      if (error instanceof RangeError) throw ingestTooLarge();
      throw error;
    }
  }
  return response;
}
