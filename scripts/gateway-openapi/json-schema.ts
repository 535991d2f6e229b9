// JSON Schema building blocks for the gateway's OpenAPI document, and the conversion of the
// routes' own TypeBox schemas into plain JSON Schema 2020-12 (so request bodies and queries
// are described by the very schemas that validate them, never by a copy).
import type { TSchema } from "elysia";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = { [key: string]: Json };

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** A DTO: every property is always there (absent values are null, never omitted) and nothing else is. */
export const object = (properties: Record<string, Schema>, description?: string): Schema => ({
  type: "object",
  ...(description ? { description } : {}),
  required: Object.keys(properties),
  properties,
  additionalProperties: false,
});

export const string = (description?: string): Schema => ({ type: "string", ...(description ? { description } : {}) });
export const integer = (description?: string): Schema => ({ type: "integer", minimum: 0, ...(description ? { description } : {}) });
export const boolean = (description?: string): Schema => ({ type: "boolean", ...(description ? { description } : {}) });
export const dateTime = (description?: string): Schema => ({ type: "string", format: "date-time", ...(description ? { description } : {}) });
export const constant = (value: string): Schema => ({ type: "string", const: value });
export const oneOfStrings = (values: readonly string[], description?: string): Schema => ({ type: "string", enum: [...values], ...(description ? { description } : {}) });
export const arrayOf = (items: Schema): Schema => ({ type: "array", items });

/** The same schema that also admits null (OpenAPI 3.1: a type array; a reference in a oneOf). */
export function nullable(schema: Schema): Schema {
  if (typeof schema.type === "string") return { ...schema, type: [schema.type, "null"] };
  return { oneOf: [schema, { type: "null" }] };
}

/** A page of a list, newest first: `nextCursor` is the `cursor` of the next page, null on the last. */
export const page = (key: string, item: Schema): Schema =>
  object({ [key]: arrayOf(item), nextCursor: nullable(string("The cursor query value for the next page; null on the last page.")) });

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * TypeBox's unions in the forms JSON Schema readers expect: a union of string literals as an
 * enum, `T | null` as a type array, and Elysia's query integer (an integer, or a string of
 * digits it converts) as the integer the caller means.
 */
function simplified(node: Json): Json {
  if (Array.isArray(node)) return node.map(simplified);
  if (!isObject(node)) return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, simplified(value)]));
  const alternatives = copy.anyOf;
  if (!Array.isArray(alternatives)) return copy;
  const { anyOf: _, ...rest } = copy;
  const branches = alternatives.filter(isObject);
  if (branches.every((branch) => branch.const !== undefined && branch.type === branches[0]!.type)) {
    return { ...rest, type: branches[0]!.type!, enum: branches.map((branch) => branch.const!) };
  }
  const integerBranch = branches.find((branch) => branch.type === "integer");
  if (integerBranch && branches.length === 2 && branches.some((branch) => branch.type === "string" && branch.format === "integer")) {
    return { ...rest, ...integerBranch };
  }
  const nullBranch = branches.find((branch) => branch.type === "null");
  const other = branches.find((branch) => branch !== nullBranch);
  if (nullBranch && branches.length === 2 && other && typeof other.type === "string") return { ...rest, ...other, type: [other.type, "null"] };
  return copy;
}

/** A route's TypeBox schema as plain JSON Schema (TypeBox's symbol keys and `$id` dropped). */
export function fromTypeBox(schema: TSchema): Schema {
  return simplified(JSON.parse(JSON.stringify(schema, (key, value) => (key === "$id" ? undefined : value)))) as Schema;
}
