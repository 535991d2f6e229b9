// bench/persons' population is what its report says: N users list N persons over about 1.4 N
// person rows, with merges, identified persons' properties and companies, the same for a seed.
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RegionStore } from "../../storage/region-store.ts";
import { companiesOf, identifiedShare, populate, secondDeviceShare } from "../../bench/persons/population.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Counts of what populating `users` users with `seed` wrote. */
function populated(users: number, seed: number) {
  const dir = mkdtempSync(join(tmpdir(), "bench-population-"));
  dirs.push(dir);
  const path = join(dir, "region.sqlite");
  const store = new RegionStore(path);
  populate(store.persons, "project", 0, users, users, seed);
  store.close();
  const db = new Database(path, { readonly: true });
  const count = (sql: string) => (db.query(sql).get() as { count: number }).count;
  try {
    return {
      listed: count("SELECT COUNT(*) AS count FROM persons WHERE merged_into IS NULL"),
      rows: count("SELECT COUNT(*) AS count FROM persons"),
      identified: count("SELECT COUNT(*) AS count FROM persons WHERE merged_into IS NULL AND is_identified = 1"),
      withPlan: count("SELECT COUNT(*) AS count FROM persons WHERE json_extract(properties, '$.plan') IS NOT NULL"),
      merges: count("SELECT COUNT(*) AS count FROM identity_log WHERE kind = 'merge'"),
      distinctIds: count("SELECT COUNT(*) AS count FROM person_distinct_ids"),
      companies: count("SELECT COUNT(*) AS count FROM groups"),
    };
  } finally {
    db.close();
  }
}

test("N users list N persons over about 1.4 N rows; identified persons have properties and companies; a seed gives the same", () => {
  const users = 4000;
  const figures = populated(users, 7);
  expect(figures.listed).toBe(users);
  expect(figures.identified).toBe(figures.withPlan);
  // Each identify merges the anonymous person away; a second device merges one more.
  expect(figures.rows).toBe(users + figures.merges);
  expect(figures.distinctIds).toBe(figures.rows);
  expect(Math.abs(figures.identified / users - identifiedShare)).toBeLessThan(0.03);
  expect(Math.abs(figures.merges / figures.identified - (1 + secondDeviceShare))).toBeLessThan(0.05);
  expect(figures.companies).toBeLessThanOrEqual(companiesOf(users));
  expect(figures.companies).toBeGreaterThan(companiesOf(users) * 0.6);
  expect(populated(users, 7)).toEqual(figures);
});
