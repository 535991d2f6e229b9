// The region's persons and groups routes (docs/persons.md): listings with cursors, a person's
// profile, events and identity history, unmerging, and groups by type. Everything a person
// sees here came in through ingest, so pages render it as text only.
import { isNotFound } from "./http.ts";
import type { RegionTokenSource } from "./region-token.ts";
import { queryString, regionJson } from "./region-api.ts";

/** A listing's page: `next_cursor` null is the last page (a short or empty page may still have one). */
export interface Page<T> {
  results: T[];
  next_cursor: string | null;
}

export type Properties = Record<string, unknown>;

export interface Person {
  id: string;
  distinct_ids: string[];
  properties: Properties;
  created_at: string;
  is_identified: boolean;
  version: number;
}

export interface PersonEvent {
  uuid: string;
  event: string;
  timestamp: string;
  distinct_id: string;
  anon_id: string | null;
  session_id: string | null;
  window_id: string | null;
  lib: { name: string; version: string };
  consent: string | null;
  groups: Record<string, string> | null;
  $set: Properties | null;
  $set_once: Properties | null;
  properties: Properties;
  location: { country: string | null; region: string | null; city: string | null; timezone: string | null };
  is_suspect: boolean;
  sample_rate: number;
}

export interface IdentityEntry {
  kind: "merge" | "refused" | "unmerge";
  at: string;
  event_uuid: string | null;
  survivor_id: string;
  absorbed_id: string;
}

export interface Identity {
  person_id: string;
  distinct_ids: string[];
  history: IdentityEntry[];
}

export interface GroupType {
  index: number;
  name: string;
}

export interface Group {
  type_index: number;
  type: string;
  key: string;
  properties: Properties;
  created_at: string;
}

export interface PersonSearch {
  /** A person id, or part of a distinct id (case-insensitive). */
  search?: string;
  /** Persons having this property… */
  property?: string;
  /** …equal to this value (compared as text). */
  value?: string;
}

const id = encodeURIComponent;

export const listPersons = (tokens: RegionTokenSource, filter: PersonSearch, cursor: string | null, limit: number) =>
  regionJson<Page<Person>>(tokens, "GET", `/persons${queryString({ ...filter, limit, cursor })}`);
export const getPerson = (tokens: RegionTokenSource, personId: string) => regionJson<Person>(tokens, "GET", `/persons/${id(personId)}`);
export const personEvents = (tokens: RegionTokenSource, personId: string, cursor: string | null, limit: number) =>
  regionJson<Page<PersonEvent>>(tokens, "GET", `/persons/${id(personId)}/events${queryString({ limit, cursor })}`);
export const personIdentity = (tokens: RegionTokenSource, personId: string) => regionJson<Identity>(tokens, "GET", `/persons/${id(personId)}/identity`);
export const unmergePerson = (tokens: RegionTokenSource, personId: string, distinctIds: string[]) =>
  regionJson<{ person: Person; new_person: Person }>(tokens, "POST", `/persons/${id(personId)}/unmerge`, { distinct_ids: distinctIds });

export const groupTypes = (tokens: RegionTokenSource) => regionJson<{ results: GroupType[] }>(tokens, "GET", "/groups/types");
export const listGroups = (tokens: RegionTokenSource, typeIndex: number, search: string | undefined, cursor: string | null, limit: number) =>
  regionJson<Page<Group>>(tokens, "GET", `/groups${queryString({ type_index: typeIndex, search, limit, cursor })}`);

/** Keys a URL path cannot carry: the browser resolves these segments away, even percent-encoded. */
const isDotSegment = (key: string) => /^(\.|%2e){1,2}$/i.test(key);
/** Pages of a search a dot-segment key's lookup reads at most. */
const dotKeySearchPagesMax = 20;

/** A group by type and key; null when the project has no such group. */
export async function getGroup(tokens: RegionTokenSource, typeIndex: number, key: string): Promise<Group | null> {
  if (isDotSegment(key)) {
    // GET /groups/{index}/{key} cannot be addressed for these keys: find the group through the listing's search instead.
    let cursor: string | null = null;
    for (let pageNumber = 0; pageNumber < dotKeySearchPagesMax; pageNumber++) {
      const page: Page<Group> = await listGroups(tokens, typeIndex, key, cursor, 1000);
      const found = page.results.find((group) => group.type_index === typeIndex && group.key === key);
      if (found) return found;
      if (page.next_cursor === null) return null;
      cursor = page.next_cursor;
    }
    return null;
  }
  try {
    return await regionJson<Group>(tokens, "GET", `/groups/${typeIndex}/${id(key)}`);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** Event names stored in the environment (GET /schema/events, query:read), for suggestions. */
export const eventNames = (tokens: RegionTokenSource) =>
  regionJson<{ events: { name: string; volume: number }[] }>(tokens, "GET", "/schema/events").then(({ events }) => events.map((event) => event.name));
