// Shapes of parsed JSON that every ingest format checks the same way.

export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export const isPlainObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);
