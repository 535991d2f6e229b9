// How property values and condition values are read when matching, mirroring the forms PostHog's
// local evaluation (posthog-node 5.x via @posthog/core) compares, so that whenever the SDK decides
// a condition locally our server decides it the same way.

/**
 * PostHog's "boolean handling" for equality: a condition value that is a boolean, the string
 * "true"/"false" in any case, or a list made only of those compares by truthiness instead of text.
 */
export function isTruthyOrFalsyLike(value: unknown): boolean {
  if (typeof value === "boolean") return true;
  if (typeof value === "string") {
    const lowered = value.toLowerCase();
    return lowered === "true" || lowered === "false";
  }
  return Array.isArray(value) && value.every(isTruthyOrFalsyLike);
}

/** true, "true" in any case, or a list made only of those. */
export function isTruthyLike(value: unknown): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") return value.toLowerCase() === "true";
  return Array.isArray(value) && value.every(isTruthyLike);
}

/**
 * The text equality compares (before lowercasing): a string is itself, anything else its
 * canonical JSON. posthog-node cannot tell an integer from an integral float and leaves those to
 * the server; the server prints integers without a fraction, as PostHog's service does for the
 * integers its JSON parser keeps.
 */
export function equalityText(value: unknown): string {
  return typeof value === "string" ? value : canonicalJson(value);
}

/**
 * Compact JSON with object keys in code point order (the order of PostHog's Rust service and of
 * @posthog/core). Values JSON cannot hold (undefined, non-finite numbers, functions) print as null.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort(compareByCodePoint)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(",")}}`;
  }
  return "null";
}

const FIRST_SURROGATE_UNIT = 0xd800;
const LAST_SURROGATE_UNIT = 0xdfff;
const ABOVE_BASIC_PLANE = 0x10000;

// UTF-16 unit order and code point order differ only where a surrogate (part of a code point
// above U+FFFF) meets a unit in U+E000..U+FFFF, so surrogates are ranked above every BMP unit.
function codePointRank(unit: number): number {
  return unit >= FIRST_SURROGATE_UNIT && unit <= LAST_SURROGATE_UNIT ? unit + ABOVE_BASIC_PLANE : unit;
}

function compareByCodePoint(left: string, right: string): number {
  const sharedLength = Math.min(left.length, right.length);
  for (let index = 0; index < sharedLength; index++) {
    const leftUnit = left.charCodeAt(index);
    const rightUnit = right.charCodeAt(index);
    if (leftUnit !== rightUnit) return codePointRank(leftUnit) - codePointRank(rightUnit);
  }
  return left.length - right.length;
}

const NON_ASCII = /[^\x00-\x7f]/;
const ASCII_UPPERCASE_LETTER = /[A-Z]/g;

/** Substring operators fold ASCII letters only, as PostHog does. */
export function asciiLowercase(text: string): string {
  // For pure ASCII text the built-in lowercasing is the same fold and much cheaper.
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return text.replace(ASCII_UPPERCASE_LETTER, (letter) => letter.toLowerCase());
}
