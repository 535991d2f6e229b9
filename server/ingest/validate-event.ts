// Per-event rules of the native ingest API. A failing event is rejected with a reason and
// the rest of the batch goes on; nothing here throws for bad input.
import {
  clockSkewToleranceMs, distinctIdLengthMax, eventNameLengthMax, groupKeyLengthMax, groupTypesPerEventMax, libFieldLengthMax,
} from "./limits.ts";
import { keyMessage, keyProblem, keysProblem } from "./property-keys.ts";
import { isPlainObject, sentUuid } from "./json-values.ts";
import { knownReservedEvents } from "./reserved-events.ts";
import { parseRfc3339 } from "./rfc3339.ts";
import { isUuidV7 } from "../../storage/uuid-index.ts";
import { groupSetProperty } from "../../storage/ip-property.ts";
import { currencyCodes } from "./minor-units.ts";
import type { RejectReason, Rejection } from "./rejections.ts";

export type Consent = "granted" | "pending" | "cookieless";

export interface ValidEvent {
  uuid: string;
  event: string;
  /** Epoch milliseconds, corrected for clock skew and clamped to now. */
  timestamp: number;
  distinctId: string;
  properties: Record<string, unknown>;
  libName: string;
  libVersion: string;
  anonId: string | null;
  sessionId: string | null;
  windowId: string | null;
  set: Record<string, unknown> | null;
  setOnce: Record<string, unknown> | null;
  groups: Record<string, string> | null;
  consent: Consent;
}

export type EventVerdict = { ok: true; event: ValidEvent } | ({ ok: false } & Rejection);

export interface RequestClock {
  /** Server receive time, epoch ms. */
  now: number;
  /** The request's sent_at, epoch ms, or null when the client sent none. */
  sentAt: number | null;
  /** Events older than this (epoch ms) are past the project's retention. */
  oldestAllowed: number;
  /** The project's retention, for the rejection's message. */
  retentionDays: number;
}

/** White space around an address or number does not make it another id. */
const emailPattern = /^\s*[^\s@]+@[^\s@]+\.[^\s@]+\s*$/;
const phoneCharacters = /^\s*\+?[0-9 ().-]+$/;
/** Amount properties that must be integer minor units when the event names a currency. */
const moneyProperties = ["revenue", "amount", "price"] as const;
const consentValues: ReadonlySet<string> = new Set(["granted", "pending", "cookieless"]);

/** Unicode code points in `text`: the spec's "characters" (an emoji is one, not two UTF-16 units). */
function codePointCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++, count++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return count;
}

/** At most `max` characters, counted in code points only when UTF-16 units pass `max` (never fewer). */
const withinCharacters = (text: string, max: number): boolean => text.length <= max || codePointCount(text) <= max;

/** 1 to `max` characters, not only white space. */
const isBoundedString = (value: unknown, max: number): value is string =>
  typeof value === "string" && value.length >= 1 && withinCharacters(value, max) && value.trim().length > 0;

/**
 * A phone number: 7-15 digits written as a phone number is written (a leading + or
 * separators). A bare run of digits is a numeric user id and stays allowed.
 */
export function looksLikePhoneNumber(value: string): boolean {
  if (!phoneCharacters.test(value)) return false;
  const digits = value.replace(/\D/g, "").length;
  return digits >= 7 && digits <= 15 && /[+ ().-]/.test(value);
}

export const looksLikeEmail = (value: string): boolean => emailPattern.test(value);

const currencyMessage = "properties.currency must be an ISO 4217 currency code such as USD";
const moneyMessages = Object.fromEntries(moneyProperties.map((name) => [
  name, `properties.${name} must be an integer amount in minor units of properties.currency (4999 for 49.99 USD)`,
])) as Record<(typeof moneyProperties)[number], string>;

/** Why the event's money properties break the rule, or null when they keep it. */
function moneyProblem(properties: Record<string, unknown>): string | null {
  if (!("currency" in properties)) return null;
  const currency = properties.currency;
  if (typeof currency !== "string" || !currencyCodes.has(currency)) return currencyMessage;
  for (const name of moneyProperties) if (name in properties && !Number.isSafeInteger(properties[name])) return moneyMessages[name];
  return null;
}

/** Why the keys of `values` (field `field`) cannot name properties, or null when they can or it is no object. */
function keysMessage(values: unknown, field: string): string | null {
  const problem = isPlainObject(values) ? keysProblem(values) : null;
  return problem === null ? null : keyMessage(`a key of ${field}`, problem);
}

/** Why `groups` breaks its rules, or null when it keeps them. */
function groupsMessage(value: unknown): string | null {
  if (!isPlainObject(value)) return messages.groups;
  const entries = Object.entries(value);
  if (entries.length > groupTypesPerEventMax) return messages.groups;
  for (const [type, key] of entries) {
    if (type.length < 1 || type.length > eventNameLengthMax || !isBoundedString(key, groupKeyLengthMax)) return messages.groups;
    const problem = keyProblem(type);
    if (problem !== null) return keyMessage("a group type of groups", problem);
  }
  return null;
}

const optionalObject = (value: unknown): value is Record<string, unknown> | undefined | null =>
  value === undefined || value === null || isPlainObject(value);

const messages = {
  notObject: "event must be a JSON object",
  uuid: "uuid must be a UUIDv7 generated by the sender (resend the same uuid on retry)",
  event: `event must be a name of 1 to ${eventNameLengthMax} characters, not only white space`,
  reservedName: "event names starting with $ are reserved and this one is not a name the service knows; use a name without $",
  timestamp: "timestamp must be an RFC 3339 date-time with a time zone offset, such as 2026-11-21T10:00:00Z",
  clockSkew: `timestamp is more than ${clockSkewToleranceMs / 1000} s after sent_at; the client's clock or sent_at is wrong`,
  distinctId: `distinct_id must be a string of 1 to ${distinctIdLengthMax} characters, not only white space`,
  email: "distinct_id looks like an email address; use a user id",
  phone: "distinct_id looks like a phone number; use a user id",
  properties: "properties must be a JSON object",
  lib: `lib must be an object with a name and a version of 1 to ${libFieldLengthMax} characters each`,
  anonId: `anon_id must be a string of 1 to ${distinctIdLengthMax} characters when given`,
  sessionId: "session_id must be a UUIDv7 when given",
  windowId: "window_id must be a UUIDv7 when given",
  set: "$set must be a JSON object when given",
  setOnce: "$set_once must be a JSON object when given",
  groups: `groups must be an object of at most ${groupTypesPerEventMax} group types, each of 1 to ${eventNameLengthMax} characters, `
    + `with a key of 1 to ${groupKeyLengthMax} characters each`,
  consent: "consent must be granted, pending or cookieless when given",
};

const retentionMessage = (days: number) => `timestamp is older than the project's retention of ${days} days`;

/** Validates one native event. `raw` is whatever the client sent in `batch[i]`. */
export function validateEvent(raw: unknown, clock: RequestClock): EventVerdict {
  if (!isPlainObject(raw)) return { ok: false, uuid: null, reason: "invalid", message: messages.notObject };
  const uuid = sentUuid(raw);
  const reject = (message: string, reason: RejectReason = "invalid"): EventVerdict => ({ ok: false, uuid, reason, message });
  if (!isUuidV7(raw.uuid)) return reject(messages.uuid);
  if (!isBoundedString(raw.event, eventNameLengthMax)) return reject(messages.event);
  if (raw.event.startsWith("$") && !knownReservedEvents.has(raw.event)) return reject(messages.reservedName, "reserved_name");

  const stamped = parseRfc3339(raw.timestamp);
  if (stamped === null) return reject(messages.timestamp);
  let timestamp = stamped;
  if (clock.sentAt !== null) {
    if (stamped - clock.sentAt > clockSkewToleranceMs) return reject(messages.clockSkew, "clock_skew");
    timestamp = stamped + (clock.now - clock.sentAt);
  }
  if (timestamp > clock.now) timestamp = clock.now;
  if (timestamp < clock.oldestAllowed) return reject(retentionMessage(clock.retentionDays));

  const distinctId = raw.distinct_id;
  if (!isBoundedString(distinctId, distinctIdLengthMax)) return reject(messages.distinctId);
  if (looksLikeEmail(distinctId)) return reject(messages.email);
  if (looksLikePhoneNumber(distinctId)) return reject(messages.phone);

  const properties = raw.properties;
  if (!isPlainObject(properties)) return reject(messages.properties);
  const moneyMessage = moneyProblem(properties);
  if (moneyMessage !== null) return reject(moneyMessage);
  const propertyKeysMessage = keysMessage(properties, "properties");
  if (propertyKeysMessage !== null) return reject(propertyKeysMessage);
  const lib = raw.lib;
  if (!isPlainObject(lib) || !isBoundedString(lib.name, libFieldLengthMax) || !isBoundedString(lib.version, libFieldLengthMax)) {
    return reject(messages.lib);
  }
  if (raw.anon_id !== undefined && raw.anon_id !== null && !isBoundedString(raw.anon_id, distinctIdLengthMax)) return reject(messages.anonId);
  if (raw.session_id !== undefined && raw.session_id !== null && !isUuidV7(raw.session_id)) return reject(messages.sessionId);
  if (raw.window_id !== undefined && raw.window_id !== null && !isUuidV7(raw.window_id)) return reject(messages.windowId);
  if (!optionalObject(raw.$set)) return reject(messages.set);
  if (!optionalObject(raw.$set_once)) return reject(messages.setOnce);
  const personKeysMessage = keysMessage(raw.$set, "$set") ?? keysMessage(raw.$set_once, "$set_once");
  if (personKeysMessage !== null) return reject(personKeysMessage);
  if (raw.event === "$groupidentify") {
    const groupKeysMessage = keysMessage(properties[groupSetProperty], `properties.${groupSetProperty}`);
    if (groupKeysMessage !== null) return reject(groupKeysMessage);
  }
  if (raw.groups !== undefined && raw.groups !== null) {
    const message = groupsMessage(raw.groups);
    if (message !== null) return reject(message);
  }
  if (raw.consent !== undefined && raw.consent !== null && !(typeof raw.consent === "string" && consentValues.has(raw.consent))) {
    return reject(messages.consent);
  }

  return {
    ok: true,
    event: {
      uuid: raw.uuid.toLowerCase(),
      event: raw.event,
      timestamp,
      distinctId,
      properties,
      libName: lib.name,
      libVersion: lib.version,
      anonId: (raw.anon_id as string | null | undefined) ?? null,
      sessionId: (raw.session_id as string | null | undefined)?.toLowerCase() ?? null,
      windowId: (raw.window_id as string | null | undefined)?.toLowerCase() ?? null,
      set: (raw.$set as Record<string, unknown> | null | undefined) ?? null,
      setOnce: (raw.$set_once as Record<string, unknown> | null | undefined) ?? null,
      groups: (raw.groups as Record<string, string> | null | undefined) ?? null,
      consent: ((raw.consent as Consent | null | undefined) ?? "granted"),
    },
  };
}
