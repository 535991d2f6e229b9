import type { TSchema } from "elysia";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { validation } from "./errors.ts";

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** Errors that only say the value is of another kind than one alternative wanted. */
const kindMismatches = new Set([
  ValueErrorType.Array, ValueErrorType.Boolean, ValueErrorType.Integer, ValueErrorType.Literal, ValueErrorType.Null,
  ValueErrorType.Number, ValueErrorType.Object, ValueErrorType.String, ValueErrorType.Union,
]);

/**
 * "Expected union value" says nothing useful when the value has the right kind for exactly one
 * alternative (a string too long for `string | null`): that alternative's own error is reported.
 * When several alternatives could have been meant (two object shapes), the union's error stands.
 */
function explain(error: ValueError): ValueError {
  if (error.type !== ValueErrorType.Union) return error;
  const meant = error.errors.map((alternative) => alternative.First()).filter((first) => first !== undefined && !kindMismatches.has(first.type));
  return meant.length === 1 ? explain(meant[0]!) : error;
}

/** Checks a request body against its schema; the first problem becomes a 400 validation error. */
export function validateBody<T>(schema: TSchema, body: unknown): T {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  if (body === undefined) throw validation("request body is required");
  if (!check.Check(body)) {
    const found = check.Errors(body).First();
    const first = found && explain(found);
    const where = first?.path ? `body ${first.path}` : "body";
    throw validation(`${where}: ${first?.message ?? "is invalid"}`);
  }
  return body as T;
}
