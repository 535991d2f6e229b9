import { expect, test } from "bun:test";
import { DistinctIdCache } from "../../storage/distinct-id-cache.ts";

test("ids in use survive a generation turnover; ids unseen for a whole generation are forgotten; projects are separate", () => {
  const cache = new DistinctIdCache(3);
  cache.set("p1", "hot", 1);
  cache.set("p1", "cold", 2);
  cache.set("p2", "hot", 9);
  expect([cache.get("p1", "hot"), cache.get("p2", "hot"), cache.get("p2", "cold")]).toEqual([1, 9, undefined]);
  // The fourth entry starts a new generation; "hot" of p1 is used in it and moves forward.
  cache.set("p1", "new-1", 3);
  expect(cache.get("p1", "hot")).toBe(1);
  cache.set("p1", "new-2", 4);
  // Another turnover: "cold" was not used during the last generation.
  cache.set("p1", "new-3", 5);
  expect([cache.get("p1", "hot"), cache.get("p1", "new-2"), cache.get("p1", "cold")]).toEqual([1, 4, undefined]);
  // A newer mapping wins over the previous generation's.
  cache.set("p1", "new-1", 7);
  expect(cache.get("p1", "new-1")).toBe(7);
  cache.clear();
  expect(cache.get("p1", "hot")).toBeUndefined();
});
