// Maps everything an Elysia app can throw to the spec's error body, so each surface
// installs one handler and no route formats its own errors.
import { ApiError, errorResponse, internalErrorResponse, validation } from "./errors.ts";

interface ElysiaErrorContext {
  code: string | number;
  error: unknown;
}

function describeValidation(error: unknown): string {
  const details = error as { type?: string; valueError?: { path?: string; message?: string }; message?: string };
  const where = details.type ?? "request";
  const path = details.valueError?.path ? ` ${details.valueError.path}` : "";
  const message = details.valueError?.message ?? "is invalid";
  return `${where}${path}: ${message}`;
}

/** The error as an ApiError (null for an unexpected one). */
export function toApiError({ code, error }: ElysiaErrorContext): ApiError | null {
  if (error instanceof ApiError) return error;
  // Errors thrown while parsing the body (size limit, bad JSON) arrive wrapped in Elysia's ParseError.
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof ApiError) return cause;
  if (code === "VALIDATION") return validation(describeValidation(error));
  if (code === "PARSE") return validation("request body could not be parsed");
  if (code === "NOT_FOUND") return new ApiError(404, "not_found", "no such route");
  if (code === "INVALID_COOKIE_SIGNATURE") return new ApiError(401, "unauthorized", "invalid cookie");
  return null;
}

export function apiErrorHandler(context: ElysiaErrorContext): Response {
  const apiError = toApiError(context);
  return apiError ? errorResponse(apiError) : internalErrorResponse(context.error);
}
