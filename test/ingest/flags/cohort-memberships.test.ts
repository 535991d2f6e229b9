// The stored memberships remote flag evaluation reads: a person by its distinct id, a
// recalculation seen at once, and the cache bound at its edge without a wrong answer past it.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RegionStore } from "../../../storage/region-store.ts";
import { FlagCohortMemberships, flagCohortMembershipsMax } from "../../../server/ingest/flags/cohort-memberships.ts";

const project = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e01";
const dirs: string[] = [];
const stores: RegionStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openRegion(): RegionStore {
  const dir = mkdtempSync(join(tmpdir(), "flag-cohorts-"));
  dirs.push(dir);
  const store = new RegionStore(join(dir, "region.sqlite"));
  stores.push(store);
  return store;
}

const cohortId = (index: number) => `0193a7c2-0000-7000-8000-${String(index).padStart(12, "0")}`;

test(`a member by its distinct id; recalculations count at once; at most ${flagCohortMembershipsMax} memberships kept`, () => {
  const store = openRegion();
  const count = flagCohortMembershipsMax + 1;
  const persons = store.persons.attribute(project, Array.from({ length: count + 1 }, (_, index) => ({
    uuid: `019a8b2c-0000-7000-8000-${String(index).padStart(12, "0")}`, event: "page_viewed", timestamp: 1_000 + index, distinctId: `d${index}`,
    anonId: null, set: null, setOnce: null, properties: {}, groups: null,
  })));
  expect(persons).toEqual(Array.from({ length: count + 1 }, (_, index) => index));
  for (let index = 0; index < count; index++) {
    store.cohorts.put(project, "production", { cohortId: cohortId(index), kind: "dynamic", version: 1, calculatedAt: 1, members: Int32Array.of(index) });
  }
  const memberships = new FlagCohortMemberships(store);
  const answers = (index: number) => [memberships.has(project, "production", cohortId(index), `d${index}`), memberships.has(project, "production", cohortId(index), `d${index + 1}`)];
  for (let index = 0; index < flagCohortMembershipsMax; index++) expect(answers(index)).toEqual([true, false]);
  expect(memberships.size).toBe(flagCohortMembershipsMax);
  expect(answers(flagCohortMembershipsMax)).toEqual([true, false]);
  expect(memberships.size).toBe(1);
  expect(answers(0)).toEqual([true, false]);
  store.cohorts.put(project, "production", { cohortId: cohortId(0), kind: "dynamic", version: 2, calculatedAt: 2, members: Int32Array.of(1) });
  expect(answers(0)).toEqual([false, true]);
  expect([memberships.has(project, "staging", cohortId(1), "d1"), memberships.has(project, "production", cohortId(1), "unknown"), memberships.has(project, "production", cohortId(999), "d1")])
    .toEqual([false, false, false]);
});
