// Bounds a JSON value by the length of its text while keeping its shape: every array is cut
// to its first items (fewer and fewer until the text fits) and long strings are shortened.
// Results go to the model and into answers this way; `truncated` says something was cut.

/** Strings longer than this are shortened once a value must be cut. */
export const boundedStringCharsMax = 1_000;
const itemsStart = 4_096;

function trimmed(value: unknown, itemsMax: number): unknown {
  if (Array.isArray(value)) return value.slice(0, itemsMax).map((item) => trimmed(item, itemsMax));
  if (typeof value === "string") return value.length > boundedStringCharsMax ? `${value.slice(0, boundedStringCharsMax)}…` : value;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, trimmed(member, itemsMax)]));
  }
  return value;
}

/** The value itself when its JSON text takes at most `charsMax` characters; else a cut copy, or null when even that does not fit. */
export function boundJson(value: unknown, charsMax: number): { value: unknown; truncated: boolean } {
  if (JSON.stringify(value).length <= charsMax) return { value, truncated: false };
  for (let items = itemsStart; items >= 1; items = Math.floor(items / 2)) {
    const candidate = trimmed(value, items);
    if (JSON.stringify(candidate).length <= charsMax) return { value: candidate, truncated: true };
  }
  return { value: null, truncated: true };
}
