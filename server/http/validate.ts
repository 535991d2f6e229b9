import type { TSchema } from "elysia";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { validation } from "./errors.ts";

/**
 * The error to report: for a value refused by a nullable schema (a union of one schema and
 * null) that is not null, what that schema says of it ("Expected string length less or equal
 * to 200"), rather than "Expected union value".
 */
function reported(error: ValueError): ValueError {
  if (error.type !== ValueErrorType.Union || error.value === null) return error;
  const variants = (error.schema as { anyOf?: TSchema[] }).anyOf ?? [];
  const nullAt = variants.findIndex((variant) => variant.type === "null");
  if (variants.length !== 2 || nullAt === -1) return error;
  const inner = error.errors[1 - nullAt]?.First();
  return inner ? reported(inner) : error;
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

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
    const first = found && reported(found);
    const where = first?.path ? `body ${first.path}` : "body";
    throw validation(`${where}: ${first?.message ?? "is invalid"}`);
  }
  return body as T;
}
