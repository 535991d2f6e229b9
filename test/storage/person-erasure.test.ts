// The SQLite side of an erasure (storage/person-erasure.ts) on a region file of its own: what
// identifiers resolve to, what is deleted, tombstones that keep erased person indexes from
// being given again (also after a reopen), and a file that holds none of the erased bytes.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { RegionStore } from "../../storage/region-store.ts";
import type { IdentityEvent } from "../../storage/person-store.ts";
import { erasedPersonMark } from "../../storage/person-erasure.ts";

const dirs: string[] = [];
const stores: RegionStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openRegion(dir = mkdtempSync(join(tmpdir(), "person-erasure-"))) {
  if (!dirs.includes(dir)) dirs.push(dir);
  const store = new RegionStore(join(dir, "region.sqlite"));
  stores.push(store);
  return { dir, store };
}

/** More than a page: the value goes to overflow pages, which an update frees whole. */
const overflowBytes = 6000;
const project = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e01";
let clock = Date.parse("2026-11-20T10:00:00.000Z");
let serial = 0;
const event = (distinctId: string, overrides: Partial<IdentityEvent> = {}): IdentityEvent => ({
  uuid: `019a8b2c-0000-7000-8000-${String(++serial).padStart(12, "0")}`,
  event: "page_viewed", timestamp: (clock += 1000), distinctId, anonId: null, set: null, setOnce: null, properties: {}, groups: null, ...overrides,
});

/** anon-q → user-q by $identify (with an email), and a bystander; returns the persons' indexes. */
function seed(store: RegionStore) {
  // The bystander first: the erased persons hold the highest indexes, the ones a deletion would free.
  store.persons.attribute(project, [event("bystander", { set: { email: "by@example.org" } }), event("anon-q7"), event("user-q7")]);
  store.persons.attribute(project, [event("user-q7", { event: "$identify", properties: { $anon_distinct_id: "anon-q7" }, set: { email: "q7.secret@example.org" } })]);
  const user = store.directory.personOf(project, "user-q7")!;
  return { user, indexes: store.directory.indexesOf(project, user.index) };
}

describe("person erasure", () => {
  test("an absorbed person's uuid resolves to its survivor, its ids and the persons merged into it", () => {
    const { store } = openRegion();
    const { user, indexes } = seed(store);
    const absorbed = store.directory.person(project, indexes[1]!)!;
    expect(absorbed.mergedInto).toBe(user.index);
    const subjects = store.personErasure.resolve(project, [absorbed.id.toUpperCase()], ["never-seen"]);
    expect(subjects).toEqual({
      distinctIds: ["anon-q7", "never-seen", "user-q7"],
      personIndexes: [...indexes].sort((a, b) => a - b),
      personIds: [absorbed.id, user.id].sort(),
      currentPersons: 1,
    });
  });

  test("erases the rows, keeps erased indexes taken (after a reopen too), and leaves no erased byte in the file", () => {
    const { dir, store } = openRegion();
    const { indexes } = seed(store);
    const subjects = store.personErasure.resolve(project, [], ["user-q7"]);
    let recorded = null as unknown;
    const counts = store.personErasure.erase(project, subjects, (within) => (recorded = { ...within }));
    expect(counts).toEqual({ persons: 2, distinct_ids: 2, merges: 2, cohort_memberships: 0, ingestion_warning_examples: 0 });
    expect(recorded).toEqual(counts);
    // Asked again (a resumed job): nothing more to delete.
    expect(store.personErasure.erase(project, subjects, () => {})).toEqual({ persons: 0, distinct_ids: 0, merges: 0, cohort_memberships: 0, ingestion_warning_examples: 0 });
    expect(indexes.map((index) => store.directory.person(project, index)!.mergedInto)).toEqual([erasedPersonMark, erasedPersonMark]);
    expect(store.directory.personOf(project, "user-q7")).toBeNull();
    expect(store.directory.identityLog(project, indexes[0]!)).toEqual([]);
    expect(store.directory.listPersons(project, {}, null, 10).persons.map((person) => person.properties)).toEqual([{ email: "by@example.org" }]);
    store.checkpointJournal();
    const bytes = readFileSync(join(dir, "region.sqlite")).toString("latin1");
    for (const needle of ["user-q7", "anon-q7", "q7.secret"]) expect(bytes).not.toContain(needle);
    expect(bytes).toContain("bystander");
    store.close();
    stores.splice(stores.indexOf(store), 1);
    const reopened = openRegion(dir).store;
    const [again] = reopened.persons.attribute(project, [event("user-q7")]);
    expect(again).toBe(Math.max(...indexes) + 1);
    expect(reopened.directory.personOf(project, "user-q7")!.properties).toEqual({});
  });

  test("compactFile leaves no copy of what a file without secure_delete freed before the erasure (an earlier property value)", () => {
    const { dir, store } = openRegion();
    seed(store);
    const user = store.directory.personOf(project, "user-q7")!;
    // A file from before secure_delete: the earlier value (long enough for overflow pages) stays in free pages when overwritten.
    const older = new Database(join(dir, "region.sqlite"));
    older.exec("PRAGMA secure_delete = OFF");
    older.query("UPDATE persons SET properties = ? WHERE project_id = ? AND person_index = ?")
      .run(JSON.stringify({ email: "q7.secret@example.org", plan: `earlier-plan-q7-${"x".repeat(overflowBytes)}` }), project, user.index);
    older.query("UPDATE persons SET properties = ? WHERE project_id = ? AND person_index = ?").run(JSON.stringify({ plan: "now" }), project, user.index);
    older.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    older.close();
    store.personErasure.erase(project, store.personErasure.resolve(project, [], ["user-q7"]), () => {});
    store.checkpointJournal();
    const held = () => {
      const bytes = readFileSync(join(dir, "region.sqlite")).toString("latin1");
      return ["earlier-plan-q7", "q7.secret", "user-q7", "bystander"].filter((needle) => bytes.includes(needle));
    };
    expect(held()).toEqual(["earlier-plan-q7", "q7.secret", "bystander"]);
    store.compactFile();
    expect(held()).toEqual(["bystander"]);
  });

  test("ingestion-warning examples are found by the ids stored beside them; rows from before those ids, by their text", () => {
    const { dir, store } = openRegion();
    seed(store);
    const contactPseudonym = "psn_00112233445566778899aabbccddeeff";
    const row = (message: string, example: string, exampleIds: string[]) => ({
      projectId: project, environment: "production", day: "2026-11-20", reason: "invalid", message, count: 1, firstSeen: clock, lastSeen: clock, example, exampleIds,
    });
    store.ingestionWarnings.add([
      // The id masked in the text (a contact, kept beside it as its pseudonym), or cut off with it.
      row("masked", '{"distinct_id":"[masked]"}', [contactPseudonym]),
      row("cut", '{"event":"x","distinct_id":"user-…', ["user-q7"]),
      // Another person's example holding the short id "1" in its text: not theirs.
      row("other", '{"distinct_id":"keeper","properties":{"n":"1"}}', ["keeper"]),
      row("legacy", '{"distinct_id":"anon-q7"}', []),
    ]);
    // A row stored before the ids were: matched by its text.
    const raw = new Database(join(dir, "region.sqlite"));
    raw.query("UPDATE ingestion_warnings SET example_ids = NULL WHERE message = 'legacy'").run();
    raw.close();
    const subjects = store.personErasure.resolve(project, [], ["user-q7", "1", contactPseudonym]);
    expect(store.personErasure.erase(project, subjects, () => {}).ingestion_warning_examples).toBe(3);
    const examples = store.ingestionWarnings.list(project, "production", { reason: null, from: "2000-01-01", to: "2999-12-31" })
      .map(({ message, example, exampleIds }) => [message, example, exampleIds]);
    expect(examples.sort()).toEqual([
      ["cut", "", []], ["legacy", "", []], ["masked", "", []], ["other", '{"distinct_id":"keeper","properties":{"n":"1"}}', ["keeper"]],
    ]);
  });
});
