// A scripted history of merges goes in over HTTP; the events as stored plus the person
// store's override array must count each human once, across events written before and after
// each merge.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { canonicalPersons } from "../../engine/persons.ts";
import { RegionStore } from "../../storage/region-store.ts";
import { readStored } from "../helpers/stored-events.ts";
import { nativeBody, nativeEvent, ok, postIngest, rfc3339, startDedicatedService, type NativeEvent } from "../ingest/helpers.ts";

describe("unique persons across merges", () => {
  test("five humans, nine distinct ids, merges in between their events: five persons", async () => {
    const dedicated = await startDedicatedService();
    try {
      let clock = Date.now() - 3_600_000;
      const event = (distinctId: string, extra: NativeEvent = {}) =>
        nativeEvent({ distinct_id: distinctId, timestamp: rfc3339((clock += 1000)), properties: {}, ...extra });
      const requests: [human: string, NativeEvent][][] = [
        // Alice browses anonymously on her laptop, signs in, then browses on her phone and signs in there.
        [["alice", event("anon-laptop")], ["alice", event("anon-laptop")], ["carol", event("anon-carol")]],
        [["alice", event("alice", { event: "$identify", properties: { $anon_distinct_id: "anon-laptop" } })], ["alice", event("alice")]],
        [["alice", event("anon-phone")], ["bob", event("bob")], ["bob", event("bob")]],
        [["alice", event("alice", { anon_id: "anon-phone" })], ["alice", event("anon-phone")]],
        // Bob gets an alias, then uses it; the alias chain goes on to a third id.
        [["bob", event("bob", { event: "$create_alias", properties: { alias: "bob-crm" } })], ["bob", event("bob-crm")]],
        [["bob", event("bob-legacy")], ["bob", event("bob-crm", { event: "$create_alias", properties: { alias: "bob-legacy" } })]],
        // Dan and Erin are both identified; an alias between them is refused, so they stay two.
        [["dan", event("dan", { event: "$identify" })], ["erin", event("erin", { event: "$identify" })]],
        [["dan", event("dan", { event: "$create_alias", properties: { alias: "erin" } })], ["erin", event("erin")], ["carol", event("anon-carol")]],
      ];
      for (const request of requests) {
        const reply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, request.map(([, sent]) => sent)));
        expect([reply.status, reply.body]).toEqual([200, ok(request.length)]);
      }
      await dedicated.service.stop();

      const humanOf = new Map(requests.flat().map(([human, sent]) => [sent.uuid as string, human]));
      const stored = (await readStored(dedicated.service.dataDir)).flatMap((record) => record.events);
      expect(stored).toHaveLength(humanOf.size);
      const regionStore = new RegionStore(join(dedicated.service.dataDir, "eu", "region.sqlite"));
      const canonical = regionStore.directory.canonicalIndexes(dedicated.project.id);
      regionStore.close();

      const personIndex = Int32Array.from(stored.map((row) => row.person_index));
      expect(new Set(canonicalPersons(personIndex, canonical)).size).toBe(5);
      // Without the overrides, the persons as they were at ingest count the same humans twice.
      expect(new Set(personIndex).size).toBe(8);
      expect(new Set(stored.map((row) => row.distinct_id)).size).toBe(9);
      // Every event of one human resolves to the same person, and different humans to different persons.
      const persons = canonicalPersons(personIndex, canonical);
      const personOfHuman = new Map<string, Set<number>>();
      stored.forEach((row, i) => {
        const human = humanOf.get(row.uuid)!;
        personOfHuman.set(human, (personOfHuman.get(human) ?? new Set()).add(persons[i]!));
      });
      expect([...personOfHuman.values()].map((set) => set.size)).toEqual([1, 1, 1, 1, 1]);
      expect(new Set([...personOfHuman.values()].map((set) => [...set][0])).size).toBe(5);
      // A selection counts only its rows: the events of Alice's phone (before and after its merge) are one person.
      const phoneRows = Uint32Array.from(stored.flatMap((row, i) => (row.distinct_id === "anon-phone" ? [i] : [])));
      expect(phoneRows).toHaveLength(2);
      expect(new Set(Array.from(phoneRows, (row) => persons[row]!)).size).toBe(1);
    } finally {
      await dedicated.dispose();
    }
  });

  test("an index newer than the override array stands for itself", () => {
    const canonical = Int32Array.from([0, 0, 2]);
    expect([...canonicalPersons(Int32Array.from([1, 2, 3, 7]), canonical)]).toEqual([0, 2, 3, 7]);
    expect(new Set(canonicalPersons(Int32Array.from([0, 1, 3, 3, 40]), canonical)).size).toBe(3);
    expect(new Set(canonicalPersons(new Int32Array(0), canonical)).size).toBe(0);
  });
});
