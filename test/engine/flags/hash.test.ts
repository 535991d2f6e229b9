// The bucket hash must be PostHog's bit for bit: checked against a straightforward reference
// (hex digest -> BigInt -> Number / 0xfffffffffffffff), against values worked out by hand with
// Python's hashlib, and against the expectations PostHog's own consistency tests pin.
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { flagBucket, hashToUnitInterval, ROLLOUT_HASH_SALT, VARIANT_HASH_SALT } from "../../../engine/flags/hash.ts";
import { evaluateFlag } from "../../../engine/flags/evaluate.ts";
import type { EvaluationContext, FlagDefinition } from "../../../engine/flags/types.ts";

const LONG_SCALE = 0xfffffffffffffff;
const HEX_DIGITS_USED = 15;

function referenceBucket(input: string): number {
  const hex = createHash("sha1").update(input, "utf8").digest("hex").slice(0, HEX_DIGITS_USED);
  return Number(BigInt(`0x${hex}`)) / LONG_SCALE;
}

test("equals the BigInt reference for 100,000 ids, salts and non-ASCII text", () => {
  const mismatches: string[] = [];
  for (let index = 0; index < 100_000; index++) {
    const input = `flag-${index % 7}.user-${index}${index % 3 === 0 ? "variant" : ""}${index % 11 === 0 ? "ü🚀" : ""}`;
    if (hashToUnitInterval(input) !== referenceBucket(input)) mismatches.push(input);
  }
  expect(mismatches).toEqual([]);
});

test("hand-worked values (sha1 by Python's hashlib, first 15 hex digits / 0xfffffffffffffff)", () => {
  // sha1("simple-flag.distinct_id_0") starts c8a05362b9f414f
  expect(flagBucket("simple-flag", "distinct_id_0", ROLLOUT_HASH_SALT, "")).toBe(0.7836963764220432);
  // sha1("simple-flag.distinct_id_1") starts 56f70997ddf6067
  expect(flagBucket("simple-flag", "distinct_id_1", ROLLOUT_HASH_SALT, "")).toBe(0.3397069926995401);
  // sha1("multivariate-flag.distinct_id_0variant") starts 9e5f8c67dc34910
  expect(flagBucket("multivariate-flag", "distinct_id_0", VARIANT_HASH_SALT, "")).toBe(0.6186454537930379);
  // UTF-8: sha1("beta.user-ü-🚀") starts 0a5243655af8a12
  expect(flagBucket("beta", "user-ü-🚀", ROLLOUT_HASH_SALT, "")).toBe(0.04031773781295779);
});

test("the flag's salt is appended after PostHog's salt; an empty salt is PostHog's hash", () => {
  expect(flagBucket("k", "id", VARIANT_HASH_SALT, "s1")).toBe(referenceBucket("k.idvariants1"));
  expect(flagBucket("k", "id", ROLLOUT_HASH_SALT, "s1")).toBe(referenceBucket("k.ids1"));
  expect(flagBucket("k", "id", ROLLOUT_HASH_SALT, "")).toBe(referenceBucket("k.id"));
  expect(flagBucket("k", "id", ROLLOUT_HASH_SALT, "s1")).not.toBe(flagBucket("k", "id", ROLLOUT_HASH_SALT, ""));
});

const emptyContext = (distinctId: string): EvaluationContext => ({
  distinct_id: distinctId,
  person_properties: {},
  groups: {},
  group_properties: {},
  group_types: [],
});

const flagBase = {
  name: "",
  enabled: true,
  variants: [],
  payload: null,
  salt: "",
  stickiness: "distinct_id",
  version: 1,
} satisfies Partial<FlagDefinition>;

test("PostHog's test_simple_flag_consistency: 45% rollout, distinct_id_0..39", () => {
  const flag: FlagDefinition = {
    ...flagBase,
    id: 1,
    key: "simple-flag",
    kind: "boolean",
    rules: [{ properties: [], rollout_percentage: 45, variant: null }],
  };
  const expected = "0110100101011010001101001011000111100000";
  const actual = Array.from({ length: expected.length }, (_, index) =>
    evaluateFlag(flag, emptyContext(`distinct_id_${index}`)).enabled ? "1" : "0",
  ).join("");
  expect(actual).toBe(expected);
});

test("PostHog's test_multivariate_flag_consistency: 55% rollout, variants 50/20/20/5/5, distinct_id_0..19", () => {
  const flag: FlagDefinition = {
    ...flagBase,
    id: 2,
    key: "multivariate-flag",
    kind: "multivariate",
    rules: [{ properties: [], rollout_percentage: 55, variant: null }],
    variants: [
      { key: "first-variant", rollout_percentage: 50 },
      { key: "second-variant", rollout_percentage: 20 },
      { key: "third-variant", rollout_percentage: 20 },
      { key: "fourth-variant", rollout_percentage: 5 },
      { key: "fifth-variant", rollout_percentage: 5 },
    ],
  };
  const off = false;
  const expected: (string | false)[] = [
    "second-variant", "second-variant", "first-variant", off, off,
    "second-variant", "first-variant", off, off, off,
    "first-variant", "third-variant", off, "first-variant", "second-variant",
    "first-variant", off, off, "fourth-variant", "first-variant",
  ];
  const actual = expected.map((_, index) => {
    const result = evaluateFlag(flag, emptyContext(`distinct_id_${index}`));
    return result.enabled ? result.variant : off;
  });
  expect(actual).toEqual(expected);
});
