import type { TSchema } from "elysia";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { validation } from "./errors.ts";

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
    const first = check.Errors(body).First();
    const where = first?.path ? `body ${first.path}` : "body";
    throw validation(`${where}: ${first?.message ?? "is invalid"}`);
  }
  return body as T;
}
