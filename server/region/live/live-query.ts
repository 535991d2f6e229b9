// The query string of GET /events/live: which events a stream or a JSON answer shows
// (`event`, `distinct_id`, `properties`) and how many recent events it starts with (`limit`).
// Any other parameter is refused, so a misspelt filter cannot silently show everything.
import { distinctIdLengthMax, eventNameLengthMax, propertyKeyLengthMax } from "../../ingest/limits.ts";
import type { ValidEvent } from "../../ingest/validate-event.ts";
import { badRequest } from "../region-access.ts";
import { recentEventsMax } from "./recent-events.ts";

/** Values of `event`, and of `distinct_id`, a request may give (any of them matches). */
export const liveFilterValuesMax = 20;
/** Keys the `properties` object may compare (all of them must match). */
export const livePropertyFiltersMax = 10;
/** Characters of a string value `properties` compares with. */
export const livePropertyValueLengthMax = 1000;
/** Recent events shown when the request names no `limit` (and the most it may name). */
export const liveLimitDefault = recentEventsMax;

const knownParameters: ReadonlySet<string> = new Set(["event", "distinct_id", "properties", "limit"]);

export type PropertyValue = string | number | boolean | null;

export interface LiveFilter {
  /** null: every event name. */
  events: ReadonlySet<string> | null;
  /** null: every distinct id. */
  distinctIds: ReadonlySet<string> | null;
  /** Each key must hold exactly this value (same JSON type). */
  properties: readonly [string, PropertyValue][];
}

export interface LiveQuery {
  filter: LiveFilter;
  limit: number;
}

/** Characters as ingest counts them: Unicode code points. */
const characters = (text: string) => [...text].length;

/** A repeatable text parameter: null when absent, else up to liveFilterValuesMax values of 1 to `lengthMax` characters. */
function textValues(query: URLSearchParams, name: string, lengthMax: number): ReadonlySet<string> | null {
  const values = query.getAll(name);
  if (values.length === 0) return null;
  if (values.length > liveFilterValuesMax) throw badRequest(`${name} may be given at most ${liveFilterValuesMax} times`);
  for (const value of values) {
    if (value === "" || characters(value) > lengthMax) throw badRequest(`each ${name} must be 1 to ${lengthMax} characters`);
  }
  return new Set(values);
}

const propertiesMessage = `properties must be a JSON object of 1 to ${livePropertyFiltersMax} keys, each mapped to a string, number, boolean or null`;

function propertyFilters(query: URLSearchParams): [string, PropertyValue][] {
  const given = query.getAll("properties");
  if (given.length === 0) return [];
  if (given.length > 1) throw badRequest("properties may be given once (one JSON object holds every key)");
  let parsed: unknown;
  try {
    parsed = JSON.parse(given[0]!);
  } catch {
    throw badRequest(propertiesMessage);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw badRequest(propertiesMessage);
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length === 0 || entries.length > livePropertyFiltersMax) throw badRequest(propertiesMessage);
  for (const [key, value] of entries) {
    if (key === "" || characters(key) > propertyKeyLengthMax) throw badRequest(`each key of properties must be 1 to ${propertyKeyLengthMax} characters`);
    if (value !== null && typeof value === "object") throw badRequest(propertiesMessage);
    if (typeof value === "string" && characters(value) > livePropertyValueLengthMax) {
      throw badRequest(`each string value of properties must be at most ${livePropertyValueLengthMax} characters`);
    }
  }
  return entries as [string, PropertyValue][];
}

function limitParam(query: URLSearchParams): number {
  const given = query.getAll("limit");
  if (given.length === 0) return liveLimitDefault;
  const limit = Number(given[0]);
  if (given.length > 1 || !/^\d+$/.test(given[0]!) || limit > recentEventsMax) throw badRequest(`limit must be an integer from 0 to ${recentEventsMax}`);
  return limit;
}

/** The request's filter and limit; 400 bad_request for anything else. */
export function liveQuery(query: URLSearchParams): LiveQuery {
  for (const name of query.keys()) {
    if (!knownParameters.has(name)) throw badRequest(`unknown query parameter ${JSON.stringify(name.slice(0, 100))}; known: ${[...knownParameters].join(", ")}`);
  }
  return {
    filter: {
      events: textValues(query, "event", eventNameLengthMax),
      distinctIds: textValues(query, "distinct_id", distinctIdLengthMax),
      properties: propertyFilters(query),
    },
    limit: limitParam(query),
  };
}

/** Whether an event passes the filter. */
export function matches(filter: LiveFilter, event: ValidEvent): boolean {
  if (filter.events !== null && !filter.events.has(event.event)) return false;
  if (filter.distinctIds !== null && !filter.distinctIds.has(event.distinctId)) return false;
  for (const [key, value] of filter.properties) {
    if (!Object.hasOwn(event.properties, key) || event.properties[key] !== value) return false;
  }
  return true;
}
