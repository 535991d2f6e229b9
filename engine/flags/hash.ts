// PostHog's bucketing: the first 15 hex digits (60 bits) of
// sha1(`${flag_key}.${bucketing_value}${salt}`) divided by 0xfffffffffffffff, a float in [0, 1]
// (1 itself only for the topmost 2^-54 of inputs, as in PostHog).
//
// PostHog's salt is "" for the rollout check and "variant" for choosing a variant. Our flag's own
// salt is appended after PostHog's, so a flag whose salt is "" hashes bit for bit like PostHog.
//
// The reference computes Number(60-bit integer) / 0xfffffffffffffff. As doubles, the integer is
// rounded to 53 bits (round half to even) and the divisor becomes exactly 2^60, so the quotient is
// that rounded integer scaled by 2^-60. We read the 60 bits as a 32-bit high part and a 28-bit low
// part: hi * 2^28 is exact and the single addition rounds the exact sum once, half to even, which
// is the same double. This is what PostHog's Rust service (u64 as f64) and posthog-node on V8
// compute. JavaScriptCore's parseInt accumulates hex digits with repeated rounding, so posthog-node
// running on Bun is one unit in the last place off for about 4% of inputs; a rollout or variant
// boundary would have to fall inside that 2^-53 gap to change an answer.

/** Appended for the rollout check (PostHog's salt). */
export const ROLLOUT_HASH_SALT = "";
/** Appended when choosing a variant (PostHog's salt). */
export const VARIANT_HASH_SALT = "variant";

const SHA1_BYTES = 20;
const TWO_POW_4 = 2 ** 4;
const TWO_POW_8 = 2 ** 8;
const TWO_POW_12 = 2 ** 12;
const TWO_POW_16 = 2 ** 16;
const TWO_POW_20 = 2 ** 20;
const TWO_POW_24 = 2 ** 24;
const TWO_POW_28 = 2 ** 28;
const TWO_POW_60 = 2 ** 60;

// One reusable digest buffer: hashing is synchronous and JavaScript runs one call at a time, and
// not allocating per call is most of the speed (about 0.3 µs per hash).
const digest = new Uint8Array(SHA1_BYTES);

/** The PostHog bucket of an already-assembled hash input, in [0, 1]. */
export function hashToUnitInterval(input: string): number {
  Bun.SHA1.hash(input, digest);
  const high32 =
    digest[0]! * TWO_POW_24 + digest[1]! * TWO_POW_16 + digest[2]! * TWO_POW_8 + digest[3]!;
  const low28 =
    digest[4]! * TWO_POW_20 + digest[5]! * TWO_POW_12 + digest[6]! * TWO_POW_4 + (digest[7]! >> 4);
  return (high32 * TWO_POW_28 + low28) / TWO_POW_60;
}

/**
 * The bucket of `bucketingValue` for a flag: `posthogSalt` is ROLLOUT_HASH_SALT or
 * VARIANT_HASH_SALT, `flagSalt` the flag's own salt ("" for PostHog-identical buckets).
 */
export function flagBucket(
  flagKey: string,
  bucketingValue: string,
  posthogSalt: string,
  flagSalt: string,
): number {
  return hashToUnitInterval(`${flagKey}.${bucketingValue}${posthogSalt}${flagSalt}`);
}
