// Shapes of parsed JSON that every ingest format checks the same way.

export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export const isPlainObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** An id as SDKs send one: a non-empty string, or a number written as text; else null (no id). */
export const idText = (value: unknown): string | null =>
  typeof value === "string" && value !== "" ? value : typeof value === "number" && Number.isFinite(value) ? String(value) : null;

/** The uuid an event was sent with, when it is a string (a rejection reports it as sent), else null. */
export const sentUuid = (event: unknown): string | null => (isPlainObject(event) && typeof event.uuid === "string" ? event.uuid : null);

/**
 * Whether `value` nests objects and arrays at most `levels` deep: a scalar is 0 deep, `{}` and
 * `[]` are 1, `{"a": [1]}` is 2. Stops at the first level past the bound, so it never recurses
 * deeper than `levels`.
 */
export function nestsWithin(value: unknown, levels: number): boolean {
  if (typeof value !== "object" || value === null) return true;
  if (levels === 0) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!nestsWithin(item, levels - 1)) return false;
    return true;
  }
  for (const key in value) if (!nestsWithin((value as JsonObject)[key], levels - 1)) return false;
  return true;
}
