// Per-event rules of the native ingest API. A failing event is rejected with a reason and
// the rest of the batch goes on; nothing here throws for bad input.
import {
  clockSkewToleranceMs, distinctIdLengthMax, eventNameLengthMax, groupKeyLengthMax, groupTypesPerEventMax, libFieldLengthMax, propertyKeyLengthMax,
} from "./limits.ts";
import { isPlainObject, sentUuid } from "./json-values.ts";
import { knownReservedEvents } from "./reserved-events.ts";
import { parseRfc3339 } from "./rfc3339.ts";
import { isUuidV7 } from "../../storage/uuid-index.ts";

export type RejectReason = "invalid" | "too_large" | "reserved_name" | "clock_skew" | "duplicate";
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

export type EventVerdict = { ok: true; event: ValidEvent } | { ok: false; uuid: string | null; reason: RejectReason };

export interface RequestClock {
  /** Server receive time, epoch ms. */
  now: number;
  /** The request's sent_at, epoch ms, or null when the client sent none. */
  sentAt: number | null;
  /** Events older than this (epoch ms) are past the project's retention. */
  oldestAllowed: number;
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const phoneCharacters = /^\+?[0-9 ().-]+$/;
const currencyCodes = new Set(Intl.supportedValuesOf("currency"));
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

function validMoney(properties: Record<string, unknown>): boolean {
  if (!("currency" in properties)) return true;
  const currency = properties.currency;
  if (typeof currency !== "string" || !currencyCodes.has(currency)) return false;
  return moneyProperties.every((name) => !(name in properties) || Number.isSafeInteger(properties[name]));
}

function keysWithinLength(properties: Record<string, unknown>): boolean {
  for (const key in properties) if (!withinCharacters(key, propertyKeyLengthMax)) return false;
  return true;
}

function validGroups(value: unknown): value is Record<string, string> {
  if (!isPlainObject(value)) return false;
  const entries = Object.entries(value);
  if (entries.length > groupTypesPerEventMax) return false;
  return entries.every(([type, key]) => type.length >= 1 && type.length <= eventNameLengthMax && isBoundedString(key, groupKeyLengthMax));
}

const optionalObject = (value: unknown): value is Record<string, unknown> | undefined | null =>
  value === undefined || value === null || isPlainObject(value);

/** Validates one native event. `raw` is whatever the client sent in `batch[i]`. */
export function validateEvent(raw: unknown, clock: RequestClock): EventVerdict {
  if (!isPlainObject(raw)) return { ok: false, uuid: null, reason: "invalid" };
  const uuid = sentUuid(raw);
  const reject = (reason: RejectReason): EventVerdict => ({ ok: false, uuid, reason });
  if (!isUuidV7(raw.uuid)) return reject("invalid");
  if (!isBoundedString(raw.event, eventNameLengthMax)) return reject("invalid");
  if (raw.event.startsWith("$") && !knownReservedEvents.has(raw.event)) return reject("reserved_name");

  const stamped = parseRfc3339(raw.timestamp);
  if (stamped === null) return reject("invalid");
  let timestamp = stamped;
  if (clock.sentAt !== null) {
    if (stamped - clock.sentAt > clockSkewToleranceMs) return reject("clock_skew");
    timestamp = stamped + (clock.now - clock.sentAt);
  }
  if (timestamp > clock.now) timestamp = clock.now;
  if (timestamp < clock.oldestAllowed) return reject("invalid");

  const distinctId = raw.distinct_id;
  if (!isBoundedString(distinctId, distinctIdLengthMax)) return reject("invalid");
  if (looksLikeEmail(distinctId) || looksLikePhoneNumber(distinctId)) return reject("invalid");

  if (!isPlainObject(raw.properties) || !validMoney(raw.properties) || !keysWithinLength(raw.properties)) return reject("invalid");
  const lib = raw.lib;
  if (!isPlainObject(lib) || !isBoundedString(lib.name, libFieldLengthMax) || !isBoundedString(lib.version, libFieldLengthMax)) {
    return reject("invalid");
  }
  if (raw.anon_id !== undefined && raw.anon_id !== null && !isBoundedString(raw.anon_id, distinctIdLengthMax)) return reject("invalid");
  for (const field of ["session_id", "window_id"] as const) {
    if (raw[field] !== undefined && raw[field] !== null && !isUuidV7(raw[field])) return reject("invalid");
  }
  if (!optionalObject(raw.$set) || !optionalObject(raw.$set_once)) return reject("invalid");
  if (raw.groups !== undefined && raw.groups !== null && !validGroups(raw.groups)) return reject("invalid");
  if (raw.consent !== undefined && raw.consent !== null && !(typeof raw.consent === "string" && consentValues.has(raw.consent))) {
    return reject("invalid");
  }

  return {
    ok: true,
    event: {
      uuid: raw.uuid.toLowerCase(),
      event: raw.event,
      timestamp,
      distinctId,
      properties: raw.properties,
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
