import { describe, expect, test } from "bun:test";
import { parseTags, tagPartLengthMax, tagsMax } from "../../../server/mail/compose/tags.ts";
import { refusal, refused } from "./refusal.ts";

const charset = "only ASCII letters, digits, underscores and dashes, at least one";

describe("tags", () => {
  test("name and value of letters, digits, _ and -", () => {
    expect(parseTags([{ name: "category", value: "password_reset" }, { name: "user-id", value: "U-123_x" }])).toEqual([
      { name: "category", value: "password_reset" },
      { name: "user-id", value: "U-123_x" },
    ]);
    expect(parseTags(undefined)).toEqual([]);
  });

  test("other characters, empty parts, missing parts and other types are refused", () => {
    for (const value of ["", "a b", "a.b", "a:b", "ünï", "a%0d%0a", "a/b"]) {
      expect(refusal(() => parseTags([{ name: "n", value }]))).toEqual(refused("tags[0].value", "invalid_value", charset));
      expect(refusal(() => parseTags([{ name: value, value: "v" }]))).toEqual(refused("tags[0].name", "invalid_value", charset));
    }
    expect(refusal(() => parseTags([{ name: "n" }]))).toEqual(refused("tags[0].value", "missing_field", "is required"));
    expect(refusal(() => parseTags([{ value: "v" }]))).toEqual(refused("tags[0].name", "missing_field", "is required"));
    expect(refusal(() => parseTags([{ name: 1, value: "v" }]))).toEqual(refused("tags[0].name", "invalid_type", "must be a string"));
    expect(refusal(() => parseTags([{ name: "n", value: "v", colour: "red" }]))).toEqual(
      refused('tags[0]["colour"]', "unknown_field", "is not a tag field"),
    );
    expect(refusal(() => parseTags([["n", "v"]]))).toEqual(refused("tags[0]", "invalid_type", "must be an object {name, value}"));
    expect(refusal(() => parseTags({ name: "n", value: "v" }))).toEqual(refused("tags", "invalid_type", "must be an array of {name, value}"));
  });

  test("a name used twice is refused", () => {
    expect(refusal(() => parseTags([{ name: "a", value: "1" }, { name: "a", value: "2" }]))).toEqual(
      refused("tags[1].name", "duplicate", "another tag has the same name"),
    );
  });

  test("limits at their edges: 256 characters, 50 tags", () => {
    const longest = "t".repeat(tagPartLengthMax);
    expect(parseTags([{ name: longest, value: longest }])).toEqual([{ name: longest, value: longest }]);
    expect(refusal(() => parseTags([{ name: `${longest}t`, value: "v" }]))).toEqual(
      refused("tags[0].name", "too_long", "must be at most 256 characters"),
    );
    expect(refusal(() => parseTags([{ name: "n", value: `${longest}t` }]))).toEqual(
      refused("tags[0].value", "too_long", "must be at most 256 characters"),
    );
    const fifty = Array.from({ length: tagsMax }, (_, index) => ({ name: `t${index}`, value: "v" }));
    expect(parseTags(fifty)).toHaveLength(50);
    expect(refusal(() => parseTags([...fifty, { name: "x", value: "v" }]))).toEqual(refused("tags", "too_many", "at most 50 tags; got 51"));
  });
});
