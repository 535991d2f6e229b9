// Who a request names, as the region stores them: an email address or phone number named as a
// distinct id finds the person ingest stored under its pseudonym, whatever its spelling, and the
// named id stays among the subjects (the report hashes it as given).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RegionStore } from "../../../storage/region-store.ts";
import type { IdentityEvent } from "../../../storage/person-store.ts";
import { pseudonym } from "../../../server/ingest/pseudonyms.ts";
import { resolveErasureSubjects, storedDistinctIds } from "../../../server/region/erasure/erasure-subjects.ts";

const project = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e02";
const dirs: string[] = [];
const stores: RegionStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

let serial = 0;
const event = (distinctId: string): IdentityEvent => ({
  uuid: `019a8b2c-0000-7000-8000-${String(++serial).padStart(12, "0")}`,
  event: "page_viewed", timestamp: Date.parse("2026-11-20T10:00:00.000Z") + serial, distinctId, anonId: null, set: null, setOnce: null, properties: {}, groups: null,
});

function openStore(): RegionStore {
  const dir = mkdtempSync(join(tmpdir(), "erasure-subjects-"));
  dirs.push(dir);
  const store = new RegionStore(join(dir, "region.sqlite"));
  stores.push(store);
  return store;
}

describe("erasure subjects", () => {
  test("contacts named as distinct ids resolve through their pseudonyms; other ids stand as given", () => {
    const store = openStore();
    const key = store.projectSecrets.pseudonymKey(project);
    const emailPseudonym = pseudonym(key, "email", "jane@example.com");
    const phonePseudonym = pseudonym(key, "phone", "+44 20 7946 0958");
    store.persons.attribute(project, [event(emailPseudonym), event(phonePseudonym), event("bystander")]);
    const jane = store.directory.personOf(project, emailPseudonym)!;
    const caller = store.directory.personOf(project, phonePseudonym)!;
    const subjects = resolveErasureSubjects(store, project, [], [" Jane@Example.com", "+442079460958", "user-7"]);
    expect(subjects).toEqual({
      distinctIds: [" Jane@Example.com", "+442079460958", emailPseudonym, phonePseudonym, "user-7"].sort(),
      personIndexes: [jane.index, caller.index].sort((a, b) => a - b),
      personIds: [jane.id, caller.id].sort(),
      currentPersons: 2,
    });
  });

  test("ids that are not contacts ask for no key", () => {
    expect(storedDistinctIds(["user-7", "1", "anon-x"], () => { throw new Error("no key wanted"); })).toEqual(["user-7", "1", "anon-x"]);
  });
});
