// Product-analytics (PostHog) events turned into native events (spec 2, drop-in mapping rules
// 1-8; docs/drop-in.md). The body may be one event, `{batch: [...]}` or a bare array; the
// project key sits at the batch level (`api_key`) or in the events (`token`, `$token`,
// `api_key`, `properties.token`). Every mapped event then goes through the native rules.
import { isUuidV7 } from "../../../storage/uuid-index.ts";
import { derivedUuidV7 } from "../derived-uuid.ts";
import { idText, isPlainObject, nestsWithin, type JsonObject } from "../json-values.ts";
import { eventNestingMax } from "../limits.ts";
import { vendorEventName } from "../reserved-events.ts";
import { ingestMalformed } from "../decode-body.ts";
import { parseRfc3339 } from "../rfc3339.ts";
import { tooDeepMessage, type Refusal } from "../rejections.ts";
import { setOwn } from "../../../storage/own-keys.ts";
import { amountsInMinorUnits } from "../minor-units.ts";

export const postHogLibName = "posthog-compat";
/** Unknown `$` events are kept under this prefix (a `$` name of our own must be one we know). */
export const postHogEventPrefix = "posthog:";
/** Not stored, not counted: session-recording snapshots, heatmaps and performance events (rule 5). */
export const droppedPostHogEvents: ReadonlySet<string> = new Set(["$snapshot", "$snapshot_items", "$$heatmap", "$performance_event"]);
/** Money properties PostHog's SDKs send in major units (49.99 with `currency: "USD"`). */
export const postHogAmounts = ["revenue", "$revenue", "price", "amount"];
/** A timestamp further than this ahead of the server's clock is replaced by the receive time. */
export const futureToleranceMs = 23 * 3_600_000;
/** The furthest instant from 1970 a JavaScript date holds, in ms either way. */
const dateMsMax = 8.64e15;

/**
 * Properties that become native fields and so leave `properties`. `$ip` stays: the native path
 * locates the event by it and drops it (rule 4; server/ingest/event-origin.ts).
 */
const movedProperties = ["distinct_id", "token", "$token", "api_key", "$set", "$set_once", "$groups", "$session_id", "$window_id"];

/** The events of a body and the key sent at the batch level, if any. */
export function postHogEvents(body: unknown): { events: unknown[]; batchKey: string | null; sentAt: unknown } {
  if (Array.isArray(body)) return { events: body, batchKey: null, sentAt: undefined };
  if (!isPlainObject(body)) return { events: [], batchKey: null, sentAt: undefined };
  const batchKey = typeof body.api_key === "string" ? body.api_key : typeof body.token === "string" ? body.token : null;
  if (Array.isArray(body.batch)) return { events: body.batch, batchKey, sentAt: body.sent_at };
  if (body.batch !== undefined) throw ingestMalformed("batch must be an array of events");
  if (Array.isArray(body.data)) return { events: body.data, batchKey, sentAt: body.sent_at };
  return { events: [body], batchKey, sentAt: body.sent_at };
}

/** The project key an event carries, if any. */
export function eventKey(event: unknown): string | null {
  if (!isPlainObject(event)) return null;
  for (const value of [event.token, event.$token, event.api_key, isPlainObject(event.properties) ? event.properties.token : undefined]) {
    if (typeof value === "string" && value !== "") return value;
  }
  return null;
}

/** A date-time PostHog SDKs send: RFC 3339, or ISO 8601 without a zone (taken as UTC). */
function instant(value: unknown): number | null {
  if (typeof value !== "string") return null;
  return parseRfc3339(value) ?? (/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(value) ? parseRfc3339(`${value}Z`) : null);
}

export interface PostHogContext {
  projectId: string;
  /** The event's position in its request: events without a uuid are told apart by it. */
  index: number;
  receivedAt: number;
  /** The body's `sent_at`, epoch ms, or null. */
  sentAt: number | null;
}

/**
 * When the event happened: `offset` (ms before sending) wins; else its `timestamp` corrected
 * for the client's clock with `sent_at`; else the receive time. More than 23 h ahead: now.
 */
function eventTime(event: JsonObject, context: PostHogContext): number {
  let at = context.receivedAt;
  if (typeof event.offset === "number" && Number.isFinite(event.offset) && event.offset >= 0) at = context.receivedAt - event.offset;
  else {
    const stamped = instant(event.timestamp);
    if (stamped !== null) at = context.sentAt === null ? stamped : context.receivedAt - (context.sentAt - stamped);
  }
  return at > context.receivedAt + futureToleranceMs ? context.receivedAt : at;
}

/** A session or window id as a UUIDv7: kept when it is one, else derived from it (same id, same result). */
function sessionUuid(value: unknown, projectId: string): string | null {
  const text = idText(value);
  if (text === null || text === "") return null;
  return isUuidV7(text) ? text : derivedUuidV7(`${projectId}\u0000session\u0000${text}`, 0);
}

const notAnEvent: Refusal = { refused: "event must be a JSON object with an event name" };
const tooDeep: Refusal = { refused: tooDeepMessage };
const offsetTooFar: Refusal = { refused: "offset reaches back further than a date can (about 270,000 years)" };

/**
 * An event's `$set` (or `$set_once`) from its top level and its properties: both apply, the top
 * level's key winning, as PostHog applies them; else whichever was sent (a wrong type is left
 * for the native rules to refuse).
 */
function personWrites(topLevel: unknown, inProperties: unknown): unknown {
  if (isPlainObject(topLevel) && isPlainObject(inProperties)) return { ...inProperties, ...topLevel };
  return topLevel ?? inProperties;
}

/**
 * The native form of one PostHog event, "dropped" for the kinds rule 5 drops, or a refusal when
 * it cannot be one (not an object, no event name); the native rules judge the rest.
 */
export function nativeFromPostHog(event: unknown, context: PostHogContext): JsonObject | "dropped" | Refusal {
  if (!isPlainObject(event) || typeof event.event !== "string") return notAnEvent;
  if (droppedPostHogEvents.has(event.event)) return "dropped";
  // Too deep to write back as JSON (limits.ts); the uuid below may be derived from its JSON text.
  if (!nestsWithin(event, eventNestingMax)) return tooDeep;
  const source = isPlainObject(event.properties) ? event.properties : {};
  const properties: JsonObject = {};
  for (const key in source) if (!movedProperties.includes(key)) setOwn(properties, key, source[key]);
  amountsInMinorUnits(properties, postHogAmounts);
  const distinctId = idText(event.distinct_id) ?? idText(event.$distinct_id) ?? idText(source.distinct_id);
  const timestamp = eventTime(event, context);
  // An `offset` reaching back further than a date can (about 270,000 years) gives no time at all.
  if (timestamp < -dateMsMax) return offsetTooFar;
  // A derived id depends only on what a retry sends again: the client's uuid, or the event's
  // content and position (not `offset`, which a retry recomputes), and its time field on the
  // event's own timestamp (0 without one), not on when it arrived.
  const uuid = typeof event.uuid === "string" && isUuidV7(event.uuid)
    ? event.uuid
    : derivedUuidV7(
      typeof event.uuid === "string" && event.uuid !== ""
        ? `${context.projectId}\u0000uuid\u0000${event.uuid}`
        : `${context.projectId}\u0000event\u0000${context.index}\u0000${JSON.stringify({ ...event, offset: undefined })}`,
      instant(event.timestamp) ?? 0,
    );
  const anonymous = idText(source.$anon_distinct_id) ?? idText(source.$device_id);
  const native: JsonObject = {
    uuid,
    event: vendorEventName(postHogEventPrefix, event.event),
    timestamp: new Date(timestamp).toISOString(),
    distinct_id: distinctId,
    properties,
    lib: { name: postHogLibName, version: idText(source.$lib_version) || "unknown" },
  };
  if (anonymous !== null && anonymous !== distinctId) native.anon_id = anonymous;
  const sessionId = sessionUuid(source.$session_id, context.projectId);
  if (sessionId) native.session_id = sessionId;
  const windowId = sessionUuid(source.$window_id, context.projectId);
  if (windowId) native.window_id = windowId;
  const set = personWrites(event.$set, source.$set);
  const setOnce = personWrites(event.$set_once, source.$set_once);
  if (set !== undefined && set !== null) native.$set = set;
  if (setOnce !== undefined && setOnce !== null) native.$set_once = setOnce;
  if (isPlainObject(source.$groups)) {
    const groups: Record<string, unknown> = {};
    for (const type in source.$groups) setOwn(groups, type, idText(source.$groups[type]) ?? source.$groups[type]);
    native.groups = groups;
  }
  return native;
}
