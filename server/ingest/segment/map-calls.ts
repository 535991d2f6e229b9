// Customer-data-platform (Segment HTTP Tracking API) calls turned into native events (spec 2,
// mapping for the customer-data-platform format; docs/drop-in.md). Every mapped event then goes
// through the native rules.
import { isUuidV7 } from "../../../storage/uuid-index.ts";
import { derivedUuidV7 } from "../derived-uuid.ts";
import { idText, isPlainObject, type JsonObject } from "../json-values.ts";
import { vendorEventName } from "../reserved-events.ts";
import { parseRfc3339 } from "../rfc3339.ts";
import type { Refusal } from "../rejections.ts";
import { amountsInMinorUnits } from "../minor-units.ts";

export const segmentLibName = "segment-compat";
/** Unknown `$` event names are kept under this prefix. */
export const segmentEventPrefix = "segment:";
/** The group type a `group` call joins (Segment has one kind of group: accounts). */
export const segmentGroupType = "company";
/** Segment's currency when a call gives revenue without one. */
export const defaultCurrency = "USD";

export type SegmentCall = "track" | "identify" | "page" | "screen" | "group" | "alias";
export const segmentCalls: readonly SegmentCall[] = ["track", "identify", "page", "screen", "group", "alias"];

/** A batch's `context` and `integrations` under each item's own (the item wins, key by key in `context`). */
export function withBatchContext(item: unknown, batch: JsonObject): unknown {
  if (!isPlainObject(item)) return item;
  const merged: JsonObject = { ...item };
  if (isPlainObject(batch.context)) merged.context = { ...batch.context, ...(isPlainObject(item.context) ? item.context : {}) };
  if (batch.integrations !== undefined && item.integrations === undefined) merged.integrations = batch.integrations;
  return merged;
}

export interface SegmentContext {
  projectId: string;
  /** The call's position in its request: calls without a messageId are told apart by it. */
  index: number;
  receivedAt: number;
  /** The batch's `sentAt`, when the call has none of its own. */
  batchSentAt: unknown;
}

/** The time the client stamped on the call, if any. */
const stampedTime = (call: JsonObject) => parseRfc3339(call.originalTimestamp) ?? parseRfc3339(call.timestamp);

/** When the call happened: its timestamp corrected for the client's clock (`receivedAt - (sentAt - originalTimestamp)`). */
function callTime(call: JsonObject, context: SegmentContext): number {
  const stamped = stampedTime(call);
  if (stamped === null) return context.receivedAt;
  const sentAt = parseRfc3339(call.sentAt) ?? parseRfc3339(context.batchSentAt);
  return sentAt === null ? stamped : context.receivedAt - (sentAt - stamped);
}

/** Segment's money properties, in major units. */
const segmentAmounts = ["revenue", "price", "amount"];

/**
 * Segment sends money in major units (29.99); native events carry integer minor units (2999)
 * with a currency. Revenue without a currency is in US dollars, as Segment documents.
 */
function moneyInMinorUnits(properties: JsonObject): void {
  if (typeof properties.revenue === "number" && properties.currency === undefined) properties.currency = defaultCurrency;
  amountsInMinorUnits(properties, segmentAmounts);
}

/**
 * Context fields as event properties: OS, app version, locale and library; the user agent for
 * crawler checks; `ip` as `$ip`, which the native path locates the event by and drops (never stored).
 */
function contextProperties(context: JsonObject): JsonObject {
  const properties: JsonObject = {};
  const os = isPlainObject(context.os) ? context.os : {};
  const app = isPlainObject(context.app) ? context.app : {};
  const library = isPlainObject(context.library) ? context.library : {};
  const entries: [string, unknown][] = [
    ["$os", os.name], ["$os_version", os.version], ["$app_name", app.name], ["$app_version", app.version], ["$app_build", app.build],
    ["$locale", context.locale], ["$timezone", context.timezone], ["$lib", library.name], ["$lib_version", library.version],
    ["$raw_user_agent", context.userAgent], ["$ip", context.ip],
  ];
  for (const [name, value] of entries) if (typeof value === "string" || typeof value === "number") properties[name] = value;
  return properties;
}

/** Page fields under the names product analytics uses (`$current_url`, `$pathname`, ...). */
function pageProperties(call: JsonObject, context: JsonObject): JsonObject {
  const page = isPlainObject(context.page) ? context.page : {};
  const given = isPlainObject(call.properties) ? call.properties : {};
  const properties: JsonObject = { ...given };
  const pick = (name: string) => given[name] ?? page[name];
  const fields: [string, unknown][] = [
    ["$current_url", pick("url")], ["$pathname", pick("path")], ["$referrer", pick("referrer")], ["$title", pick("title")],
    ["$search", pick("search")], ["$page_name", call.name ?? given.name], ["$page_category", call.category ?? given.category],
  ];
  for (const [name, value] of fields) if (value !== undefined && value !== null) properties[name] = value;
  return properties;
}

const refusals = {
  notObject: { refused: "call must be a JSON object" },
  noUser: { refused: "call needs a userId or an anonymousId" },
  aliasUser: { refused: "alias needs a userId and a previousId" },
  noEvent: { refused: "track needs an event name" },
  noGroup: { refused: "group needs a groupId" },
} satisfies Record<string, Refusal>;

/** The native form of one call of kind `call`, or a refusal when it cannot be one (no user, a track without an event name). */
export function nativeFromSegment(call: unknown, kind: SegmentCall, context: SegmentContext): JsonObject | Refusal {
  if (!isPlainObject(call)) return refusals.notObject;
  const userId = idText(call.userId);
  const anonymousId = idText(call.anonymousId);
  const distinctId = kind === "alias" ? userId : userId ?? anonymousId;
  if (distinctId === null) return kind === "alias" ? refusals.aliasUser : refusals.noUser;
  const callContext = isPlainObject(call.context) ? call.context : {};
  const timestamp = callTime(call, context);
  const messageId = idText(call.messageId);
  // A derived id depends only on what a retry sends again (see posthog/map-events.ts).
  const uuid = messageId !== null && isUuidV7(messageId)
    ? messageId
    : derivedUuidV7(
      messageId !== null
        ? `${context.projectId}\u0000message\u0000${messageId}`
        : `${context.projectId}\u0000call\u0000${context.index}\u0000${JSON.stringify(call)}`,
      stampedTime(call) ?? 0,
    );
  const library = isPlainObject(callContext.library) ? callContext.library : {};
  const native: JsonObject = {
    uuid,
    timestamp: new Date(timestamp).toISOString(),
    distinct_id: distinctId,
    lib: { name: segmentLibName, version: idText(library.version) ?? "unknown" },
  };
  if (userId !== null && anonymousId !== null && anonymousId !== userId) native.anon_id = anonymousId;
  const extra = contextProperties(callContext);
  const given = isPlainObject(call.properties) ? { ...call.properties } : {};
  const traits = isPlainObject(call.traits) ? call.traits : null;
  switch (kind) {
    case "track":
      if (typeof call.event !== "string" || call.event === "") return refusals.noEvent;
      native.event = vendorEventName(segmentEventPrefix, call.event);
      moneyInMinorUnits(given);
      native.properties = { ...extra, ...given };
      break;
    case "identify":
      // Traits are person properties; without a userId there is no one to identify, only properties to set.
      native.event = userId !== null ? "$identify" : "$set";
      native.properties = { ...extra, ...given };
      if (traits) native.$set = traits;
      break;
    case "page":
      native.event = "$pageview";
      native.properties = { ...extra, ...pageProperties(call, callContext) };
      break;
    case "screen":
      native.event = "$screen";
      native.properties = { ...extra, ...given, ...(idText(call.name) !== null ? { $screen_name: call.name } : {}) };
      break;
    case "group": {
      const groupId = idText(call.groupId);
      if (groupId === null) return refusals.noGroup;
      native.event = "$groupidentify";
      native.groups = { [segmentGroupType]: groupId };
      native.properties = { ...extra, ...given, $group_type: segmentGroupType, $group_key: groupId, ...(traits ? { $group_set: traits } : {}) };
      break;
    }
    case "alias": {
      const previousId = idText(call.previousId);
      if (previousId === null) return refusals.aliasUser;
      native.event = "$create_alias";
      native.properties = { ...extra, ...given, alias: previousId };
      break;
    }
  }
  return native;
}
