// Reads what real SDKs stored back through the region API (persons and their events), as a
// user of the service would: a personal access token, a region token, GET /persons and
// GET /persons/{id}/events.
import { expect } from "bun:test";
import { createToken, regionTokenFor, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call } from "../helpers/client.ts";
import type { TestService } from "../helpers/service.ts";

export interface RegionPerson {
  id: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  is_identified: boolean;
}

export interface RegionEvent {
  uuid: string;
  event: string;
  timestamp: string;
  distinct_id: string;
  anon_id: string | null;
  session_id: string | null;
  lib: { name: string; version: string };
  groups: Record<string, string> | null;
  $set: Record<string, unknown> | null;
  properties: Record<string, unknown>;
}

export interface RegionReader {
  /** The one person one of whose distinct ids is `distinctId`. */
  personOf(distinctId: string): Promise<RegionPerson>;
  /** The person's events, oldest first. */
  eventsOf(person: RegionPerson): Promise<RegionEvent[]>;
}

export async function regionReader(service: TestService, owner: SignedUpUser, projectId: string): Promise<RegionReader> {
  const { secret } = await createToken(owner, ["persons:read", "persons.pii"]);
  const token = await regionTokenFor(service, secret, projectId, ["persons:read", "persons.pii"]);
  const get = async (path: string) => {
    const reply = await call(service.url, "GET", `/region/eu${path}`, { headers: bearer(token) });
    expect([path, reply.status]).toEqual([path, 200]);
    return reply.body;
  };
  return {
    async personOf(distinctId) {
      const { results } = await get(`/persons?search=${encodeURIComponent(distinctId)}&limit=1000`);
      const matches = (results as RegionPerson[]).filter((person) => person.distinct_ids.includes(distinctId));
      expect([distinctId, matches.length]).toEqual([distinctId, 1]);
      return matches[0]!;
    },
    async eventsOf(person) {
      const { results } = await get(`/persons/${person.id}/events?limit=1000`);
      return (results as RegionEvent[]).reverse();
    },
  };
}
