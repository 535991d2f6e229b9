// Cohort memberships in region.sqlite: the members' encoding round-trips whatever their
// spacing, rows are per project, environment and cohort, replaced whole, and survive a reopen.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RegionStore } from "../../storage/region-store.ts";
import { decodeMembers, encodeMembers } from "../../storage/cohort-members.ts";

const dirs: string[] = [];
const stores: RegionStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openRegion(path?: string): { path: string; store: RegionStore } {
  if (!path) {
    const dir = mkdtempSync(join(tmpdir(), "cohorts-"));
    dirs.push(dir);
    path = join(dir, "region.sqlite");
  }
  const store = new RegionStore(path);
  stores.push(store);
  return { path, store };
}

const project = "2b3e3c74-3f8d-4e77-9c9e-2f5e3b4d1a03";
const cohort = "0193a7c2-1111-7000-8000-00000000000a";

describe("member encoding", () => {
  test("round-trips empty, single, dense, sparse and extreme indexes", () => {
    const cases = [
      new Int32Array(0),
      Int32Array.of(0),
      Int32Array.from({ length: 100_000 }, (_, index) => index),
      Int32Array.from({ length: 5000 }, (_, index) => index * 7919 + 3),
      Int32Array.of(1, 2 ** 31 - 1),
    ];
    for (const members of cases) expect(decodeMembers(encodeMembers(members))).toEqual(members);
  });

  test("dense members take a few bytes each at most", () => {
    const members = Int32Array.from({ length: 1_000_000 }, (_, index) => index * 2);
    expect(encodeMembers(members).byteLength).toBeLessThan(100_000);
  });

  test("unsorted or repeated indexes are a programmer error", () => {
    expect(() => encodeMembers(Int32Array.of(3, 1))).toThrow("cohort members must be sorted and distinct");
    expect(() => encodeMembers(Int32Array.of(1, 1))).toThrow("cohort members must be sorted and distinct");
  });
});

describe("CohortStore", () => {
  test("stores, replaces and reads memberships per project, environment and cohort; they survive a reopen", () => {
    const { path, store } = openRegion();
    const cohorts = store.cohorts;
    expect(cohorts.summary(project, "production", cohort)).toBeNull();
    expect(cohorts.membership(project, "production", cohort)).toBeNull();
    const first = cohorts.put(project, "production", { cohortId: cohort, kind: "dynamic", version: 1, calculatedAt: 1000, members: Int32Array.of(2, 5, 9) });
    expect(first).toEqual({ cohortId: cohort, kind: "dynamic", version: 1, size: 3, calculatedAt: 1000 });
    cohorts.put(project, "staging", { cohortId: cohort, kind: "dynamic", version: 1, calculatedAt: 1500, members: Int32Array.of(7) });
    cohorts.put(project, "production", { cohortId: cohort, kind: "dynamic", version: 2, calculatedAt: 2000, members: Int32Array.of(1, 5) });
    expect(cohorts.membership(project, "production", cohort)).toEqual({ cohortId: cohort, kind: "dynamic", version: 2, size: 2, calculatedAt: 2000, members: Int32Array.of(1, 5) });
    expect(cohorts.summary(project, "staging", cohort)).toEqual({ cohortId: cohort, kind: "dynamic", version: 1, size: 1, calculatedAt: 1500 });
    expect(cohorts.summary("3c4f4d85-4a9e-4f88-8daf-3a6f4c5e2b04", "production", cohort)).toBeNull();
    store.close();
    stores.splice(stores.indexOf(store), 1);
    const reopened = openRegion(path).store;
    expect(reopened.cohorts.membership(project, "production", cohort)).toEqual({ cohortId: cohort, kind: "dynamic", version: 2, size: 2, calculatedAt: 2000, members: Int32Array.of(1, 5) });
  });
});
