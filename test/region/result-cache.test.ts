// The result cache is bounded in bytes (least recently used go first), refuses answers larger
// than a quarter of its bound, and drops answers once they expire, whether or not the same
// query comes again.
import { describe, expect, test } from "bun:test";
import { ResultCache } from "../../server/region/result-cache.ts";

/** Key and JSON of `bytes` bytes together (ASCII). */
const sized = (key: string, bytes: number) => [key, `"${"x".repeat(bytes - key.length - 2)}"`] as const;

describe("result cache", () => {
  test("bytes at the bound are kept; one more byte evicts the least recently used", () => {
    const cache = new ResultCache(1000);
    const [a, aJson] = sized("a", 250);
    const [b, bJson] = sized("b", 250);
    const [c, cJson] = sized("c", 250);
    const [d, dJson] = sized("d", 250);
    for (const [key, json] of [[a, aJson], [b, bJson], [c, cJson], [d, dJson]] as const) cache.set(key, json, 10_000, 0);
    expect(cache.stats()).toEqual({ entries: 4, bytes: 1000, bytes_max: 1000 });
    // Reading a makes b the least recently used.
    expect(cache.get(a, 0)).toBe(aJson);
    // One byte more: the key "e" with empty text.
    cache.set("e", "", 10_000, 0);
    expect([cache.get(b, 0), cache.get(a, 0), cache.get("e", 0)]).toEqual([null, aJson, ""]);
    expect(cache.stats()).toEqual({ entries: 4, bytes: 751, bytes_max: 1000 });
  });

  test("an answer of more than a quarter of the bound is not kept, and replacing a key counts its bytes once", () => {
    const cache = new ResultCache(1000);
    const [big, bigJson] = sized("big", 251);
    cache.set(big, bigJson, 10_000, 0);
    expect([cache.get(big, 0), cache.stats()]).toEqual([null, { entries: 0, bytes: 0, bytes_max: 1000 }]);
    const [key, json] = sized("k", 250);
    cache.set(key, json, 10_000, 0);
    cache.set(key, json, 20_000, 0);
    expect(cache.stats()).toEqual({ entries: 1, bytes: 250, bytes_max: 1000 });
  });

  test("expired answers are not served and a sweep drops every one of them", () => {
    const cache = new ResultCache(1000);
    cache.set("soon", '"a"', 100, 0);
    cache.set("later", '"b"', 3_600_000, 0);
    cache.set("also-soon", '"c"', 100, 0);
    expect(cache.get("soon", 100)).toBeNull();
    expect(cache.stats().entries).toBe(2);
    cache.sweep(100);
    expect([cache.stats(), cache.get("later", 100)]).toEqual([{ entries: 1, bytes: "later".length + 3, bytes_max: 1000 }, '"b"']);
  });

  test("an answer computed before its project was forgotten (an erasure) is not kept; others' answers and later ones are", () => {
    const cache = new ResultCache(1000);
    const project = "0193a7c2-9999-7000-8000-000000000001";
    const other = "0193a7c2-9999-7000-8000-000000000002";
    cache.set(`${project}\u0000old`, '"a"', 10_000, 0);
    cache.set(`${other}\u0000kept`, '"b"', 10_000, 0);
    const before = cache.generation(project);
    const otherBefore = cache.generation(other);
    expect(cache.forgetProject(project)).toBe(1);
    // A query that read the project's data before the erasure finishes after it.
    cache.set(`${project}\u0000stale`, '"c"', 10_000, before);
    cache.set(`${other}\u0000fresh`, '"d"', 10_000, otherBefore);
    cache.set(`${project}\u0000new`, '"e"', 10_000, cache.generation(project));
    expect([cache.get(`${project}\u0000stale`, 0), cache.get(`${other}\u0000fresh`, 0), cache.get(`${other}\u0000kept`, 0), cache.get(`${project}\u0000new`, 0)])
      .toEqual([null, '"d"', '"b"', '"e"']);
    expect(cache.stats().entries).toBe(3);
  });
});
