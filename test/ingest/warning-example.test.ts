// The example an ingestion warning keeps: JSON text of the sent event, bounded in length and
// depth however the event is built, without $ip, with personal data masked.
import { describe, expect, test } from "bun:test";
import { warningExample, warningExampleCharactersMax } from "../../server/ingest/warning-example.ts";

const none = new Set<string>();

describe("warningExample", () => {
  test("small events are their JSON text; scalars, arrays and nulls as JSON writes them", () => {
    const event = { event: "e", n: 1.5, yes: true, none: null, list: [1, "two", { three: 3 }], lib: { name: "sdk", version: "1" } };
    expect(warningExample(event, none)).toBe(JSON.stringify(event));
    expect(warningExample("text", none)).toBe('"text"');
    expect(warningExample(null, none)).toBe("null");
  });

  test(`text of exactly ${warningExampleCharactersMax} characters is whole; one more is cut to ${warningExampleCharactersMax} ending with …`, () => {
    const padding = (length: number) => ({ p: "x".repeat(length - '{"p":""}'.length) });
    expect(warningExample(padding(warningExampleCharactersMax), none)).toBe(JSON.stringify(padding(warningExampleCharactersMax)));
    const cut = warningExample(padding(warningExampleCharactersMax + 1), none);
    expect([cut.length, cut]).toEqual([warningExampleCharactersMax, `${JSON.stringify(padding(warningExampleCharactersMax + 1)).slice(0, warningExampleCharactersMax - 1)}…`]);
    // A key, a string or an array as long as the event may be is cut the same way.
    for (const huge of [{ ["k".repeat(100_000)]: 1 }, { s: "s".repeat(900_000) }, { a: Array.from({ length: 100_000 }, () => 7) }]) {
      expect(warningExample(huge, none)).toHaveLength(warningExampleCharactersMax);
    }
  });

  test("nesting past 20 levels is written as …, however deep the event goes", () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(warningExample(deep, none)).toBe(`${"[".repeat(20)}…${"]".repeat(20)}`);
  });

  test("$ip is left out at any depth; emails, IP addresses and phone numbers anywhere, and personal keys inside properties objects, read [masked]", () => {
    const event = {
      distinct_id: "ann@example.com",
      anonymousId: "+44 20 7946 0958",
      lib: { name: "sdk" },
      context: { ip: "81.2.69.160", app: { name: "Shop" } },
      traits: { name: "Ann", plan: "pro" },
      properties: { $ip: "81.2.69.160", email: "x", home_address: { street: "1 High St" }, seats: 3, custom: "kept", deep: { phone: "1", $ip: "1.1.1.1" } },
      $set: { $ip: "81.2.69.160", last_name: "Lee" },
    };
    expect(warningExample(event, new Set(["custom"]))).toBe(JSON.stringify({
      distinct_id: "[masked]",
      anonymousId: "[masked]",
      lib: { name: "sdk" },
      context: { ip: "[masked]", app: { name: "Shop" } },
      traits: { name: "[masked]", plan: "pro" },
      properties: { email: "[masked]", home_address: "[masked]", seats: 3, custom: "[masked]", deep: { phone: "[masked]" } },
      $set: { last_name: "[masked]" },
    }));
  });
});
