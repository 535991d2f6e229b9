import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { RegionStore } from "../../storage/region-store.ts";
import { UnmergeError, unmergeDistinctIdsMax, type IdentityEvent } from "../../storage/person-store.ts";
import { groupsExaminedPerPageMax, personsExaminedPerPageMax, type PersonFilter } from "../../storage/person-directory.ts";

const dirs: string[] = [];
const stores: RegionStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openRegion() {
  const dir = mkdtempSync(join(tmpdir(), "persons-"));
  dirs.push(dir);
  const store = new RegionStore(join(dir, "region.sqlite"));
  stores.push(store);
  return { path: join(dir, "region.sqlite"), store, persons: store.persons, directory: store.directory };
}

const project = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e01";
const other = "7a2d2b63-2e7c-4d66-8b8d-1e4d2a3c0f02";
let clock = Date.parse("2026-11-20T10:00:00.000Z");
let serial = 0;

function event(distinctId: string, overrides: Partial<IdentityEvent> = {}): IdentityEvent {
  clock += 1000;
  serial++;
  return {
    uuid: `019a8b2c-0000-7000-8000-${String(serial).padStart(12, "0")}`,
    event: "page_viewed",
    timestamp: clock,
    distinctId,
    anonId: null,
    set: null,
    setOnce: null,
    properties: {},
    groups: null,
    ...overrides,
  };
}

/** Every row of the person tables, for comparing whole states. */
function dump(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const tables = ["persons", "person_distinct_ids", "person_overrides", "identity_log", "group_types", "groups"];
    return Object.fromEntries(tables.map((table) => [table, db.query(`SELECT * FROM ${table} ORDER BY 1, 2, 3`).all()]));
  } finally {
    db.close();
  }
}

describe("person store", () => {
  test("anonymous browsing then identify: one identified person; the anonymous person's index resolves to it", () => {
    const { persons, directory } = openRegion();
    const [browse] = persons.attribute(project, [event("anon-1")]);
    const [identify] = persons.attribute(project, [event("user-1", { event: "$identify", anonId: "anon-1" })]);
    const after = persons.attribute(project, [event("anon-1"), event("user-1")]);
    expect(browse).toBe(0);
    expect(identify).toBe(1);
    expect(after).toEqual([1, 1]);
    expect([...directory.canonicalIndexes(project)]).toEqual([1, 1]);
    expect(directory.distinctIdsOf(project, 1)).toEqual(["anon-1", "user-1"]);
    const survivor = directory.personOf(project, "anon-1")!;
    expect({ ...survivor, id: "-" }).toEqual({
      projectId: project, index: 1, id: "-", properties: {}, createdAt: survivor.createdAt, isIdentified: true, version: 2, mergedInto: null,
    });
    expect(directory.person(project, 0)!.mergedInto).toBe(1);
    expect(directory.identityLog(project, 1).map((entry) => [entry.kind, entry.survivor, entry.absorbed])).toEqual([["merge", 1, 0]]);
  });

  test("two devices of one user are one person", () => {
    const { persons, directory } = openRegion();
    persons.attribute(project, [event("phone-anon"), event("laptop-anon")]);
    persons.attribute(project, [event("user-1", { anonId: "phone-anon" })]);
    persons.attribute(project, [event("user-1", { anonId: "laptop-anon" })]);
    const everyone = ["phone-anon", "laptop-anon", "user-1"].map((id) => directory.personOf(project, id)!.index);
    expect(new Set(everyone).size).toBe(1);
    expect(directory.distinctIdsOf(project, everyone[0]!)).toEqual(["laptop-anon", "phone-anon", "user-1"]);
    const canonical = directory.canonicalIndexes(project);
    expect(new Set([...canonical]).size).toBe(1);
  });

  test("the override array is read once and kept until a merge or an unmerge changes it; persons created since stand for themselves", () => {
    const { persons, directory } = openRegion();
    persons.attribute(project, [event("anon-1"), event("user-1")]);
    const before = directory.canonicalIndexes(project);
    expect([...before]).toEqual([0, 1]);
    persons.attribute(project, [event("anon-2")]);
    expect(directory.canonicalIndexes(project)).toBe(before);
    persons.attribute(project, [event("user-1", { anonId: "anon-1" })]);
    const merged = directory.canonicalIndexes(project);
    expect([...merged]).toEqual([1, 1, 2]);
    expect(directory.canonicalIndexes(project)).toBe(merged);
    // anon-1's own person (index 0) moves with it to the new person 3.
    expect(persons.unmerge(project, 1, ["anon-1"], clock + 1)).toBe(3);
    expect([...directory.canonicalIndexes(project)]).toEqual([3, 1, 2, 3]);
  });

  test("alias chains join every id; the older person survives when neither is identified", () => {
    const { persons, directory } = openRegion();
    persons.attribute(project, [event("a"), event("b"), event("c")]);
    persons.attribute(project, [event("a", { event: "$create_alias", properties: { alias: "b" } })]);
    persons.attribute(project, [event("c", { event: "$create_alias", properties: { alias: "b" } })]);
    persons.attribute(project, [event("d", { event: "$create_alias", properties: { alias: "c" } })]);
    expect(["a", "b", "c", "d"].map((id) => directory.personOf(project, id)!.index)).toEqual([0, 0, 0, 0]);
    expect([...directory.canonicalIndexes(project)]).toEqual([0, 0, 0, 0]);
  });

  test("joining two identified persons is refused: the event keeps its person, the refusal is logged", () => {
    const { persons, directory } = openRegion();
    persons.attribute(project, [event("user-1", { anonId: "anon-1" }), event("user-2", { anonId: "anon-2" })]);
    const refusedEvent = event("user-2", { anonId: "anon-1" });
    const [attribution] = persons.attribute(project, [refusedEvent]);
    const one = directory.personOf(project, "user-1")!;
    const two = directory.personOf(project, "user-2")!;
    expect(one.index).not.toBe(two.index);
    expect(attribution).toBe(two.index);
    expect(directory.personOf(project, "anon-1")!.index).toBe(one.index);
    expect(directory.identityLog(project, two.index)).toEqual([
      { kind: "refused", at: refusedEvent.timestamp, eventUuid: refusedEvent.uuid, survivor: two.index, absorbed: one.index },
    ]);
    // An alias between them is refused the same way.
    persons.attribute(project, [event("user-1", { event: "$create_alias", properties: { alias: "user-2" } })]);
    expect(directory.personOf(project, "user-2")!.index).toBe(two.index);
  });

  test("$set: the latest by event time wins; $set_once: the earliest; whatever the arrival order", () => {
    const { persons, directory } = openRegion();
    const early = event("u", { set: { plan: "free" }, setOnce: { first_plan: "free" } });
    const late = event("u", { set: { plan: "pro" }, setOnce: { first_plan: "pro" } });
    persons.attribute(project, [late]);
    persons.attribute(project, [early]);
    expect(directory.personOf(project, "u")!.properties).toEqual({ plan: "pro", first_plan: "free" });
    // A $set_once after a $set of the same key never replaces it.
    persons.attribute(project, [event("u", { setOnce: { plan: "enterprise" } })]);
    expect(directory.personOf(project, "u")!.properties).toEqual({ plan: "pro", first_plan: "free" });
  });

  test("property values of any key, quotes, backslashes and path syntax included", () => {
    const { persons, directory } = openRegion();
    const keys = ['a"b', "\\", 'a\\"b', "x\\", '"', "a.b", "a[0]", "'; DROP TABLE persons; --", "é🦆"];
    persons.attribute(project, [event("u", { set: Object.fromEntries(keys.map((key, index) => [key, index])) })]);
    const index = directory.personOf(project, "u")!.index;
    expect(keys.map((key) => directory.propertyValues(project, key).get(index))).toEqual(keys.map((_, value) => value));
  });

  test("$ip is never stored: a $set, $set_once or $group_set of it is ignored, the rest applies", () => {
    const { persons, directory } = openRegion();
    persons.attribute(project, [
      event("u", { set: { $ip: "81.2.69.142", plan: "pro" }, setOnce: { $ip: "81.2.69.160", source: "ad" }, groups: { company: "acme" } }),
      event("u", { event: "$groupidentify", properties: { $group_type: "company", $group_key: "acme", $group_set: { $ip: "81.2.69.142", seats: 5 } } }),
    ]);
    expect(directory.personOf(project, "u")!.properties).toEqual({ plan: "pro", source: "ad" });
    expect(directory.group(project, 0, "acme")!.properties).toEqual({ seats: 5 });
  });

  test("merged properties follow the same rules as writes", () => {
    const { persons, directory } = openRegion();
    persons.attribute(project, [event("anon", { set: { colour: "red" }, setOnce: { source: "ad" } })]);
    persons.attribute(project, [event("user", { set: { colour: "blue", email_opt_in: true }, setOnce: { source: "direct" } })]);
    persons.attribute(project, [event("user", { anonId: "anon" })]);
    expect(directory.personOf(project, "anon")!.properties).toEqual({ colour: "blue", email_opt_in: true, source: "ad" });
  });

  test("replaying the same events changes nothing", () => {
    const { path, persons, directory } = openRegion();
    const history = [
      event("anon-1", { set: { plan: "free" } }),
      event("user-1", { event: "$identify", anonId: "anon-1", setOnce: { signup: "2026-11-20" } }),
      event("user-2", { anonId: "anon-2" }),
      event("user-2", { anonId: "anon-1" }),
      event("user-1", { groups: { company: "acme" } }),
      event("user-1", { event: "$groupidentify", properties: { $group_type: "company", $group_key: "acme", $group_set: { seats: 5 } } }),
    ];
    const first = persons.attribute(project, history);
    const state = dump(path);
    const second = persons.attribute(project, history);
    expect(dump(path)).toEqual(state);
    // Events written the first time with a since-merged person resolve to the same person now.
    const canonical = directory.canonicalIndexes(project);
    expect(first.map((index) => canonical[index])).toEqual(second);
  });

  test("groups: types get indexes 0-4 per project, a sixth type is not kept, $groupidentify sets group properties", () => {
    const { persons, directory } = openRegion();
    const types = ["company", "team", "workspace", "region", "plan"];
    const firstEvent = event("u", { groups: Object.fromEntries(types.map((type) => [type, `${type}-1`])) });
    persons.attribute(project, [firstEvent]);
    types.forEach((type, index) => expect(directory.group(project, index, `${type}-1`)).toEqual({ typeIndex: index, key: `${type}-1`, properties: {}, createdAt: firstEvent.timestamp }));
    const sixthEvent = event("u", { groups: { extra: "x", team: "team-2" } });
    persons.attribute(project, [sixthEvent]);
    // A group seen again earlier (an out-of-order event) takes the earlier time.
    persons.attribute(project, [{ ...event("u", { groups: { company: "company-1" } }), timestamp: firstEvent.timestamp - 5000 }]);
    expect(directory.group(project, 0, "company-1")!.createdAt).toBe(firstEvent.timestamp - 5000);
    expect([...persons.groupTypes(project)]).toEqual(types.map((type, index) => [type, index]));
    expect([...persons.groupTypes(other)]).toEqual([]);
    const identify = event("u", { event: "$groupidentify", properties: { $group_type: "team", $group_key: "team-2", $group_set: { name: "Core" } } });
    persons.attribute(project, [identify]);
    expect(directory.group(project, 1, "team-2")).toEqual({ typeIndex: 1, key: "team-2", properties: { name: "Core" }, createdAt: sixthEvent.timestamp });
    expect(directory.group(project, 1, "nope")).toBeNull();
    expect(directory.listGroups(project, null, null, null, 100).groups.map((group) => [group.typeIndex, group.key])).toEqual([
      [0, "company-1"], [1, "team-1"], [1, "team-2"], [2, "workspace-1"], [3, "region-1"], [4, "plan-1"],
    ]);
  });

  test("groups page by (type, key) after a cursor; of one type, a cursor of an earlier type starts at its first group, of a later one leaves none", () => {
    const { persons, directory } = openRegion();
    persons.attribute(project, [event("u", { groups: { company: "b" } }), event("u", { groups: { company: "a", team: "x" } }), event("u", { groups: { team: "y" } })]);
    const keys = (typeIndex: number | null, after: { typeIndex: number; key: string } | null, search: string | null = null) =>
      directory.listGroups(project, typeIndex, search, after, 10).groups.map((group) => `${group.typeIndex}:${group.key}`);
    expect(keys(null, null)).toEqual(["0:a", "0:b", "1:x", "1:y"]);
    expect(keys(null, { typeIndex: 0, key: "a" })).toEqual(["0:b", "1:x", "1:y"]);
    expect(keys(null, { typeIndex: 0, key: "b" })).toEqual(["1:x", "1:y"]);
    expect(keys(1, { typeIndex: 1, key: "x" })).toEqual(["1:y"]);
    expect(keys(1, { typeIndex: 0, key: "b" })).toEqual(["1:x", "1:y"]);
    expect(keys(0, { typeIndex: 1, key: "x" })).toEqual([]);
    expect(keys(1, { typeIndex: 1, key: "x" }, "Y")).toEqual(["1:y"]);
  });

  test("a batch of known ids without identity effects gets their persons and writes nothing", () => {
    const { path, persons } = openRegion();
    expect(persons.attribute(project, [event("a"), event("b")])).toEqual([0, 1]);
    const state = dump(path);
    // Out of time order, and with an anon_id equal to the distinct id (no link).
    const late = event("b");
    expect(persons.attribute(project, [late, event("a", { anonId: "a" }), { ...event("a"), timestamp: late.timestamp - 60_000 }])).toEqual([1, 0, 0]);
    expect(dump(path)).toEqual(state);
  });

  test("a batch of known ids still applies every kind of identity effect", () => {
    const effects: [string, Partial<IdentityEvent>, (directory: ReturnType<typeof openRegion>["directory"]) => unknown, unknown][] = [
      ["$identify", { event: "$identify" }, (d) => d.personOf(project, "a")!.isIdentified, true],
      ["anon_id", { anonId: "b" }, (d) => d.personOf(project, "b")!.index === d.personOf(project, "a")!.index, true],
      ["$create_alias", { event: "$create_alias", properties: { alias: "b" } }, (d) => d.personOf(project, "b")!.index === d.personOf(project, "a")!.index, true],
      ["$set", { set: { plan: "pro" } }, (d) => d.personOf(project, "a")!.properties, { plan: "pro" }],
      ["$set_once", { setOnce: { source: "ad" } }, (d) => d.personOf(project, "a")!.properties, { source: "ad" }],
      ["groups", { groups: { company: "acme" } }, (d) => d.group(project, 0, "acme")?.key, "acme"],
      ["$groupidentify", { event: "$groupidentify", properties: { $group_type: "company", $group_key: "acme", $group_set: { seats: 5 } } }, (d) => d.group(project, 0, "acme")?.properties, { seats: 5 }],
    ];
    for (const [name, effect, read, expected] of effects) {
      const { persons, directory } = openRegion();
      persons.attribute(project, [event("a"), event("b")]);
      persons.attribute(project, [event("b"), event("a", effect)]);
      expect([name, read(directory)]).toEqual([name, expected]);
    }
  });

  test("projects are separate: the same distinct id is a different person in each", () => {
    const { persons, directory } = openRegion();
    persons.attribute(project, [event("shared")]);
    persons.attribute(other, [event("shared", { set: { where: "other" } })]);
    expect(directory.personOf(project, "shared")!.properties).toEqual({});
    expect(directory.personOf(other, "shared")!.properties).toEqual({ where: "other" });
    expect(directory.person(other, directory.personOf(project, "shared")!.id)).toBeNull();
  });

  test("a file of schema 6 gets the person indexes of schema 7 and the key registry's of 8 when opened, its persons as they were", () => {
    const { path, store, persons, directory } = openRegion();
    persons.attribute(project, [event("anon"), event("user", { anonId: "anon" }), event("user", { event: "$create_alias", properties: { alias: "other" } })]);
    const user = directory.personOf(project, "user")!;
    const before = dump(path);
    store.close();
    stores.splice(stores.indexOf(store), 1);
    const indexes = (db: Database) =>
      db.query("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all() as { name: string; sql: string }[];
    const db = new Database(path);
    const current = indexes(db);
    // Schema 6's indexes, as versions 3 and 4 made them.
    db.exec(`DROP INDEX person_distinct_ids_by_first_person; DROP INDEX identity_log_by_survivor; DROP INDEX identity_log_by_absorbed;
      DROP INDEX person_distinct_ids_by_person; CREATE INDEX person_distinct_ids_by_person ON person_distinct_ids (project_id, person_index);
      DROP INDEX person_overrides_by_survivor; CREATE INDEX person_overrides_by_survivor ON person_overrides (project_id, new_index);
      DROP INDEX key_registry_by_project;
      PRAGMA user_version = 6`);
    db.close();

    const reopened = new RegionStore(path);
    stores.push(reopened);
    const migrated = new Database(path, { readonly: true });
    expect([indexes(migrated), migrated.query("PRAGMA user_version").get()]).toEqual([current, { user_version: 8 }]);
    migrated.close();
    expect(dump(path)).toEqual(before);
    expect(reopened.directory.distinctIdsOf(project, user.index)).toEqual(["anon", "other", "user"]);
    expect(reopened.directory.identityLog(project, user.index).map((entry) => entry.kind)).toEqual(["merge"]);
  });

  test("the state survives reopening the file", () => {
    const { path, store, persons } = openRegion();
    persons.attribute(project, [event("anon"), event("user", { anonId: "anon", set: { plan: "pro" } })]);
    store.close();
    stores.splice(stores.indexOf(store), 1);
    const reopened = new RegionStore(path);
    stores.push(reopened);
    const [next] = reopened.persons.attribute(project, [event("newcomer")]);
    expect(next).toBe(2);
    expect(reopened.directory.personOf(project, "anon")!.properties).toEqual({ plan: "pro" });
  });

  test("unmerge: the split ids get a new person; a merged-in person whose own ids all move takes its old events along", () => {
    const { persons, directory } = openRegion();
    // anon-1 (index 0) and anon-2 (index 1) browse, then both identify as user (index 2).
    persons.attribute(project, [event("anon-1"), event("anon-2"), event("user")]);
    persons.attribute(project, [event("user", { anonId: "anon-1" }), event("user", { anonId: "anon-2", set: { plan: "pro" } })]);
    const user = directory.personOf(project, "user")!;
    expect(directory.indexesOf(project, user.index)).toEqual([2, 0, 1]);

    const split = persons.unmerge(project, user.index, ["anon-2"], clock + 1);
    expect(split).toBe(3);
    expect(directory.distinctIdsOf(project, user.index)).toEqual(["anon-1", "user"]);
    expect(directory.distinctIdsOf(project, split)).toEqual(["anon-2"]);
    // anon-2's events from before the merge (index 1) now count as the new person.
    expect([...directory.canonicalIndexes(project)]).toEqual([2, 3, 2, 3]);
    expect(directory.person(project, split)).toEqual({
      projectId: project, index: 3, id: expect.any(String), properties: {}, createdAt: clock + 1, isIdentified: true, version: 0, mergedInto: null,
    });
    expect(directory.person(project, 1)!.mergedInto).toBe(3);
    expect(directory.identityLog(project, split).map((entry) => [entry.kind, entry.survivor, entry.absorbed])).toEqual([["unmerge", 2, 3]]);
    // Later events of anon-2 follow the new mapping.
    const [later] = persons.attribute(project, [event("anon-2")]);
    expect(later).toBe(3);
  });

  test("unmerge refuses ids of another person, all of a person's ids, an empty or too long list, and merged-away persons", () => {
    const { persons, directory } = openRegion();
    persons.attribute(project, [event("anon"), event("user", { anonId: "anon" }), event("someone-else")]);
    const user = directory.personOf(project, "user")!;
    const attempt = (index: number, ids: string[]) => {
      try {
        persons.unmerge(project, index, ids, clock);
        return "done";
      } catch (error) {
        return error instanceof UnmergeError ? error.message : `unexpected: ${error}`;
      }
    };
    expect(attempt(user.index, ["someone-else"])).toBe("not distinct ids of this person: someone-else");
    expect(attempt(user.index, ["anon", "user"])).toBe("at least one distinct id must stay with the person");
    expect(attempt(user.index, [])).toBe(`distinct_ids must list 1 to ${unmergeDistinctIdsMax} distinct ids`);
    expect(attempt(user.index, Array.from({ length: unmergeDistinctIdsMax + 1 }, (_, i) => `id-${i}`))).toBe(
      `distinct_ids must list 1 to ${unmergeDistinctIdsMax} distinct ids`,
    );
    // Index 0 was anon's own person, merged into user's.
    expect(directory.person(project, 0)!.mergedInto).toBe(user.index);
    expect(attempt(0, ["anon"])).toBe("person not found");
    expect(attempt(99, ["anon"])).toBe("person not found");
    // Nothing changed.
    expect(directory.distinctIdsOf(project, user.index)).toEqual(["anon", "user"]);
    expect(attempt(user.index, Array.from({ length: unmergeDistinctIdsMax }, () => "anon"))).toBe("done");
  });

  test("listing: newest first, by search (id or part of a distinct id) or by property, pages by index", () => {
    const { persons, directory } = openRegion();
    persons.attribute(project, [
      event("alice-laptop", { set: { plan: "pro", seats: 3, beta: true } }),
      event("bob", { set: { plan: "free" } }),
      event("ALICE-phone", { set: { plan: "pro", seats: 30 } }),
      event("carol_1"),
      event("carol%1"),
    ]);
    persons.attribute(other, [event("alice-elsewhere")]);
    const ids = (filter: PersonFilter, before: number | null = null, limit = 10) => {
      const page = directory.listPersons(project, filter, before, limit);
      return [page.persons.map((person) => person.index), page.nextBefore];
    };
    expect(ids({})).toEqual([[4, 3, 2, 1, 0], null]);
    expect(ids({}, null, 2)).toEqual([[4, 3], 3]);
    expect(ids({}, 3, 2)).toEqual([[2, 1], 1]);
    expect(ids({}, 1, 2)).toEqual([[0], null]);
    expect(ids({ search: "alice" })).toEqual([[2, 0], null]);
    expect(ids({ search: "%" })).toEqual([[4], null]);
    expect(ids({ search: directory.person(project, 1)!.id })).toEqual([[1], null]);
    expect(ids({ property: "plan", value: "pro" })).toEqual([[2, 0], null]);
    expect(ids({ property: "seats", value: "3" })).toEqual([[0], null]);
    expect(ids({ property: "beta", value: "true" })).toEqual([[0], null]);
    expect(ids({ property: "seats" })).toEqual([[2, 0], null]);
    expect(ids({ property: "plan", value: "pro", search: "phone" })).toEqual([[2], null]);
    // A merged-away person is not listed.
    persons.attribute(project, [event("bob", { anonId: "carol_1" })]);
    expect(ids({})).toEqual([[4, 2, 1, 0], null]);
  });

  test(`a listing call examines at most ${personsExaminedPerPageMax} persons: a rare match comes on a later page, after a short one with a cursor`, () => {
    const { persons, directory } = openRegion();
    persons.attribute(project, [event("needle", { set: { rare: true } })]);
    for (let start = 0; start < personsExaminedPerPageMax; start += 1000) {
      persons.attribute(project, Array.from({ length: 1000 }, (_, i) => event(`hay-${start + i}`)));
    }
    for (const filter of [{ search: "needle" }, { property: "rare" }, { property: "rare", value: "true" }]) {
      const first = directory.listPersons(project, filter, null, 10);
      expect(first).toEqual({ persons: [], nextBefore: 1 });
      const second = directory.listPersons(project, filter, first.nextBefore, 10);
      expect([second.persons.map((person) => person.index), second.nextBefore]).toEqual([[0], null]);
    }
    // Without a filter every examined person matches: full pages.
    const newest = directory.listPersons(project, {}, null, 1000);
    expect([newest.persons.length, newest.nextBefore]).toEqual([1000, personsExaminedPerPageMax - 999]);
    // A cursor past the newest person starts at the newest.
    expect(directory.listPersons(project, {}, Number.MAX_SAFE_INTEGER, 1).persons.map((person) => person.index)).toEqual([personsExaminedPerPageMax]);
  });

  test(`a group search examines at most ${groupsExaminedPerPageMax} groups per call: a rare match comes on a later page, after a short one with a cursor`, () => {
    const { persons, directory } = openRegion();
    for (let start = 0; start < groupsExaminedPerPageMax; start += 1000) {
      persons.attribute(project, Array.from({ length: 1000 }, (_, i) => event("u", { groups: { company: `hay-${String(start + i).padStart(6, "0")}` } })));
    }
    persons.attribute(project, [event("u", { groups: { company: "needle" } })]);
    const first = directory.listGroups(project, null, "NEEDLE", null, 10);
    expect(first).toEqual({ groups: [], next: { typeIndex: 0, key: `hay-${String(groupsExaminedPerPageMax - 1).padStart(6, "0")}` } });
    const second = directory.listGroups(project, null, "NEEDLE", first.next, 10);
    expect([second.groups.map((group) => group.key), second.next]).toEqual([["needle"], null]);
    // Without a search every examined group matches: full pages.
    expect(directory.listGroups(project, 0, null, null, 2).next).toEqual({ typeIndex: 0, key: "hay-000001" });
  });
});
