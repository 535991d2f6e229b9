// Operating errors: each has a string code and an HTTP status, turned into the spec's
// error body in one place (errorResponse). `assert` stays for programmer errors.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const bearerChallenge = { "WWW-Authenticate": 'Bearer realm="svc-analytics"' };

export const validation = (message: string) => new ApiError(400, "validation", message);
export const unauthorized = (message = "authentication required") =>
  new ApiError(401, "unauthorized", message, bearerChallenge);
export const invalidCredentials = (message = "email or password is incorrect") =>
  new ApiError(401, "invalid_credentials", message, bearerChallenge);
/** `detail` says more when the scope alone does not explain the refusal. */
export const missingScope = (scope: string, detail?: string) =>
  new ApiError(403, "missing_scope", `requires scope \`${scope}\`${detail ? ` ${detail}` : ""}`);
export const forbidden = (message: string) => new ApiError(403, "forbidden", message);
export const scopeNotHeld = (scopes: string[]) =>
  new ApiError(403, "scope_not_held", `scope not held by your role: ${scopes.map((s) => `\`${s}\``).join(", ")}`);
export const notFound = (what = "resource") => new ApiError(404, "not_found", `${what} not found`);
export const conflict = (message: string) => new ApiError(409, "conflict", message);
export const payloadTooLarge = (limitBytes: number) =>
  new ApiError(413, "payload_too_large", `request body exceeds ${limitBytes} bytes`);
export const rateLimited = (retryAfterSeconds: number, message = "rate limit exceeded") =>
  new ApiError(429, "rate_limited", `${message}; retry after ${retryAfterSeconds} s`, {
    "Retry-After": String(retryAfterSeconds),
  });
export const unavailable = (message: string, retryAfterSeconds?: number) =>
  new ApiError(503, "unavailable", message, retryAfterSeconds ? { "Retry-After": String(retryAfterSeconds) } : {});

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: body === undefined ? headers : { "Content-Type": "application/json", ...headers },
  });
}

export function errorResponse(error: ApiError): Response {
  return jsonResponse(error.status, { error: { code: error.code, message: error.message } }, error.headers);
}

/** Unexpected errors are logged in full; clients only learn that something failed. */
export function logInternalError(error: unknown): void {
  console.error("internal error:", error);
}

export function internalErrorResponse(error: unknown): Response {
  logInternalError(error);
  return errorResponse(new ApiError(500, "internal", "internal error"));
}
