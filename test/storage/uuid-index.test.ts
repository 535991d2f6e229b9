import { describe, expect, test } from "bun:test";
import { RecentUuidIndex } from "../../storage/uuid-index.ts";

const projectA = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e01";
const projectB = "0b7e2c9a-5a43-4f1e-8c2d-7a9b3e4f5d62";

describe("recent uuid index", () => {
  test("add reports whether the uuid was new; duplicates are per project", () => {
    const index = new RecentUuidIndex(1024);
    const uuid = Bun.randomUUIDv7();
    expect(index.has(projectA, uuid)).toBe(false);
    expect(index.add(projectA, uuid)).toBe(true);
    expect(index.add(projectA, uuid)).toBe(false);
    expect(index.add(projectA, uuid.toUpperCase())).toBe(false);
    expect(index.has(projectB, uuid)).toBe(false);
    expect(index.add(projectB, uuid)).toBe(true);
  });

  test("remove forgets one uuid and keeps every other one findable (probe chains survive)", () => {
    const index = new RecentUuidIndex(4096);
    const uuids = Array.from({ length: 4000 }, () => Bun.randomUUIDv7());
    for (const uuid of uuids) expect(index.add(projectA, uuid)).toBe(true);
    for (const uuid of uuids.filter((_, i) => i % 3 === 0)) index.remove(projectA, uuid);
    uuids.forEach((uuid, i) => expect(index.has(projectA, uuid)).toBe(i % 3 !== 0));
    expect(index.add(projectA, uuids[0]!)).toBe(true);
  });

  test("two generations: the newest 2 x capacity uuids are remembered, older ones are forgotten", () => {
    const capacity = 1000;
    const index = new RecentUuidIndex(capacity);
    const uuids = Array.from({ length: capacity * 3 }, () => Bun.randomUUIDv7());
    for (const uuid of uuids) index.add(projectA, uuid);
    expect(uuids.slice(0, capacity).some((uuid) => index.has(projectA, uuid))).toBe(false);
    expect(uuids.slice(capacity).every((uuid) => index.has(projectA, uuid))).toBe(true);
  });

  test("a full generation is probed only for uuids stamped no later than its newest, and those are still found", () => {
    const capacity = 100;
    const index = new RecentUuidIndex(capacity);
    // UUIDv7s stamped a second apart, added out of time order; the first generation fills up.
    const stamped = (second: number) => `${(0x019a_0000_0000 + second * 1000).toString(16).padStart(12, "0").replace(/^(.{8})/, "$1-")}-7abc-8def-0123456789ab`;
    const older = Array.from({ length: capacity }, (_, i) => stamped(2 * ((i * 37) % capacity)));
    for (const uuid of older) expect(index.add(projectA, uuid)).toBe(true);
    // A new generation: the older uuids (a retry of any, the newest included) are still duplicates.
    expect(index.add(projectA, stamped(10_000))).toBe(true);
    for (const uuid of older) expect([uuid, index.add(projectA, uuid)]).toEqual([uuid, false]);
    // Later stamps and stamps between the older ones are new.
    expect(index.add(projectA, stamped(3))).toBe(true);
    expect(index.add(projectA, stamped(2 * capacity + 1))).toBe(true);
    expect(index.has(projectA, stamped(2 * (capacity - 1)))).toBe(true);
  });
});
