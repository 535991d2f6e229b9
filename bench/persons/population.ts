// A project's persons as bench/persons builds them: seeded users whose events go through
// PersonStore.attribute, the path ingest takes. Every user browses anonymously first; some
// identify (their anonymous person merges into the identified one, which gets person
// properties and a company group), and some of those come back on a second device that
// merges too. So a project of N users lists N persons, over about 1.4 N person rows.
import type { IdentityEvent, PersonStore } from "../../storage/person-store.ts";
import { mulberry32 } from "../ingest/generator.ts";

/** Share of users who identify. */
export const identifiedShare = 0.3;
/** Share of identified users who also identify on a second device. */
export const secondDeviceShare = 1 / 3;
/** Identified users per company (the group type `company`). */
export const usersPerCompany = 5;
export const plans = ["free", "starter", "growth", "scale"];
/** Events per attribute() call, as ingest's largest batch. */
export const batchEventsMax = 1000;

const firstEventAt = Date.parse("2026-01-01T00:00:00Z");

/** Companies a project of `users` users has. */
export const companiesOf = (users: number) => Math.max(1, Math.floor((users * identifiedShare) / usersPerCompany));

/** The events of users `from` to `to` (exclusive), in event-time order; `random` decides who identifies. */
export function* userEvents(from: number, to: number, users: number, random: () => number): Generator<IdentityEvent> {
  let serial = from * 4;
  // A page view without identity effects unless `more` gives some; a user's events a millisecond apart.
  const event = (user: number, step: number, distinctId: string, more: Partial<IdentityEvent> = {}): IdentityEvent => {
    const uuid = `00000000-0000-7000-8000-${(serial++).toString(16).padStart(12, "0")}`;
    const timestamp = firstEventAt + user * 1000 + step;
    return { uuid, event: "$pageview", timestamp, distinctId, anonId: null, set: null, setOnce: null, properties: {}, groups: null, ...more };
  };
  const companies = companiesOf(users);
  for (let user = from; user < to; user++) {
    yield event(user, 0, `anon-${user}`);
    if (random() >= identifiedShare) continue;
    const set = { plan: plans[Math.floor(random() * plans.length)]!, seats: 1 + Math.floor(random() * 50), email: `user-${user}@example.com` };
    const groups = { company: `company-${Math.floor(random() * companies)}` };
    yield event(user, 1, `user-${user}`, { event: "$identify", anonId: `anon-${user}`, set, groups });
    if (random() >= secondDeviceShare) continue;
    yield event(user, 2, `phone-${user}`);
    yield event(user, 3, `user-${user}`, { anonId: `phone-${user}` });
  }
}

/** Attributes the events of users `from` to `to` to `projectId`'s persons, ingest's largest batch at a time. */
export function populate(persons: PersonStore, projectId: string, from: number, to: number, users: number, seed: number): void {
  let batch: IdentityEvent[] = [];
  for (const event of userEvents(from, to, users, mulberry32(seed))) {
    batch.push(event);
    if (batch.length < batchEventsMax) continue;
    persons.attribute(projectId, batch);
    batch = [];
  }
  if (batch.length > 0) persons.attribute(projectId, batch);
}
