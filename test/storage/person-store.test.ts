import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { RegionStore } from "../../storage/region-store.ts";
import type { IdentityEvent } from "../../storage/person-store.ts";

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
  return { path: join(dir, "region.sqlite"), store, persons: store.persons };
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
    const { persons } = openRegion();
    const [browse] = persons.attribute(project, [event("anon-1")]);
    const [identify] = persons.attribute(project, [event("user-1", { event: "$identify", anonId: "anon-1" })]);
    const after = persons.attribute(project, [event("anon-1"), event("user-1")]);
    expect(browse!.personIndex).toBe(0);
    expect(identify!.personIndex).toBe(1);
    expect(after.map((a) => a.personIndex)).toEqual([1, 1]);
    expect([...persons.canonicalIndexes(project)]).toEqual([1, 1]);
    expect(persons.distinctIdsOf(project, 1)).toEqual(["anon-1", "user-1"]);
    const survivor = persons.personOf(project, "anon-1")!;
    expect({ ...survivor, id: "-" }).toEqual({
      projectId: project, index: 1, id: "-", properties: {}, createdAt: survivor.createdAt, isIdentified: true, version: 2, mergedInto: null,
    });
    expect(persons.person(project, 0)!.mergedInto).toBe(1);
    expect(persons.identityLog(project, 1).map((entry) => [entry.kind, entry.survivor, entry.absorbed])).toEqual([["merge", 1, 0]]);
  });

  test("two devices of one user are one person", () => {
    const { persons } = openRegion();
    persons.attribute(project, [event("phone-anon"), event("laptop-anon")]);
    persons.attribute(project, [event("user-1", { anonId: "phone-anon" })]);
    persons.attribute(project, [event("user-1", { anonId: "laptop-anon" })]);
    const everyone = ["phone-anon", "laptop-anon", "user-1"].map((id) => persons.personOf(project, id)!.index);
    expect(new Set(everyone).size).toBe(1);
    expect(persons.distinctIdsOf(project, everyone[0]!)).toEqual(["laptop-anon", "phone-anon", "user-1"]);
    const canonical = persons.canonicalIndexes(project);
    expect(new Set([...canonical]).size).toBe(1);
  });

  test("alias chains join every id; the older person survives when neither is identified", () => {
    const { persons } = openRegion();
    persons.attribute(project, [event("a"), event("b"), event("c")]);
    persons.attribute(project, [event("a", { event: "$create_alias", properties: { alias: "b" } })]);
    persons.attribute(project, [event("c", { event: "$create_alias", properties: { alias: "b" } })]);
    persons.attribute(project, [event("d", { event: "$create_alias", properties: { alias: "c" } })]);
    expect(["a", "b", "c", "d"].map((id) => persons.personOf(project, id)!.index)).toEqual([0, 0, 0, 0]);
    expect([...persons.canonicalIndexes(project)]).toEqual([0, 0, 0, 0]);
  });

  test("joining two identified persons is refused: the event keeps its person, the refusal is logged", () => {
    const { persons } = openRegion();
    persons.attribute(project, [event("user-1", { anonId: "anon-1" }), event("user-2", { anonId: "anon-2" })]);
    const refusedEvent = event("user-2", { anonId: "anon-1" });
    const [attribution] = persons.attribute(project, [refusedEvent]);
    const one = persons.personOf(project, "user-1")!;
    const two = persons.personOf(project, "user-2")!;
    expect(one.index).not.toBe(two.index);
    expect(attribution!.personIndex).toBe(two.index);
    expect(persons.personOf(project, "anon-1")!.index).toBe(one.index);
    expect(persons.identityLog(project, two.index)).toEqual([
      { kind: "refused", at: refusedEvent.timestamp, eventUuid: refusedEvent.uuid, survivor: two.index, absorbed: one.index },
    ]);
    // An alias between them is refused the same way.
    persons.attribute(project, [event("user-1", { event: "$create_alias", properties: { alias: "user-2" } })]);
    expect(persons.personOf(project, "user-2")!.index).toBe(two.index);
  });

  test("$set: the latest by event time wins; $set_once: the earliest; whatever the arrival order", () => {
    const { persons } = openRegion();
    const early = event("u", { set: { plan: "free" }, setOnce: { first_plan: "free" } });
    const late = event("u", { set: { plan: "pro" }, setOnce: { first_plan: "pro" } });
    persons.attribute(project, [late]);
    persons.attribute(project, [early]);
    expect(persons.personOf(project, "u")!.properties).toEqual({ plan: "pro", first_plan: "free" });
    // A $set_once after a $set of the same key never replaces it.
    persons.attribute(project, [event("u", { setOnce: { plan: "enterprise" } })]);
    expect(persons.personOf(project, "u")!.properties).toEqual({ plan: "pro", first_plan: "free" });
  });

  test("merged properties follow the same rules as writes", () => {
    const { persons } = openRegion();
    persons.attribute(project, [event("anon", { set: { colour: "red" }, setOnce: { source: "ad" } })]);
    persons.attribute(project, [event("user", { set: { colour: "blue", email_opt_in: true }, setOnce: { source: "direct" } })]);
    persons.attribute(project, [event("user", { anonId: "anon" })]);
    expect(persons.personOf(project, "anon")!.properties).toEqual({ colour: "blue", email_opt_in: true, source: "ad" });
  });

  test("replaying the same events changes nothing", () => {
    const { path, persons } = openRegion();
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
    const canonical = persons.canonicalIndexes(project);
    expect(first.map((a) => ({ ...a, personIndex: canonical[a.personIndex] }))).toEqual(second);
  });

  test("groups: types get indexes 0-4 per project, a sixth type is not kept, $groupidentify sets group properties", () => {
    const { persons } = openRegion();
    const types = ["company", "team", "workspace", "region", "plan"];
    const [first] = persons.attribute(project, [event("u", { groups: Object.fromEntries(types.map((type) => [type, `${type}-1`])) })]);
    expect(first!.groupKeys).toEqual(types.map((type) => `${type}-1`));
    const sixthEvent = event("u", { groups: { extra: "x", team: "team-2" } });
    const [sixth] = persons.attribute(project, [sixthEvent]);
    expect(sixth!.groupKeys).toEqual([null, "team-2", null, null, null]);
    expect([...persons.groupTypes(project)]).toEqual(types.map((type, index) => [type, index]));
    expect([...persons.groupTypes(other)]).toEqual([]);
    const identify = event("u", { event: "$groupidentify", properties: { $group_type: "team", $group_key: "team-2", $group_set: { name: "Core" } } });
    persons.attribute(project, [identify]);
    expect(persons.group(project, 1, "team-2")).toEqual({ properties: { name: "Core" }, createdAt: sixthEvent.timestamp });
    expect(persons.group(project, 1, "nope")).toBeNull();
  });

  test("projects are separate: the same distinct id is a different person in each", () => {
    const { persons } = openRegion();
    persons.attribute(project, [event("shared")]);
    persons.attribute(other, [event("shared", { set: { where: "other" } })]);
    expect(persons.personOf(project, "shared")!.properties).toEqual({});
    expect(persons.personOf(other, "shared")!.properties).toEqual({ where: "other" });
    expect(persons.person(other, persons.personOf(project, "shared")!.id)).toBeNull();
  });

  test("the state survives reopening the file", () => {
    const { path, store, persons } = openRegion();
    persons.attribute(project, [event("anon"), event("user", { anonId: "anon", set: { plan: "pro" } })]);
    store.close();
    stores.splice(stores.indexOf(store), 1);
    const reopened = new RegionStore(path);
    stores.push(reopened);
    const [next] = reopened.persons.attribute(project, [event("newcomer")]);
    expect(next!.personIndex).toBe(2);
    expect(reopened.persons.personOf(project, "anon")!.properties).toEqual({ plan: "pro" });
  });
});
