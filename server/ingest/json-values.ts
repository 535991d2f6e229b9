// Shapes of parsed JSON that every ingest format checks the same way.

export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export const isPlainObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** An id as SDKs send one: a non-empty string, or a number written as text; else null (no id). */
export const idText = (value: unknown): string | null =>
  typeof value === "string" && value !== "" ? value : typeof value === "number" && Number.isFinite(value) ? String(value) : null;
