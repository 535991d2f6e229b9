// JSON calls to the console API (/app/*) with the session cookie. Any answer that is not 2xx
// becomes an ApiError; a 401 also tells the session state that the session is gone.
import { ApiError, errorFromResponse } from "./errors.ts";

let sessionLost: () => void = () => {};

/** Called when a call that needs a session is refused for want of one (it expired, or was revoked). */
export function onSessionLost(handler: () => void): void {
  sessionLost = handler;
}

export async function requestJson<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? { Accept: "application/json" } : { Accept: "application/json", "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    const error = await errorFromResponse(response);
    if (error.status === 401 && error.code === "unauthorized") sessionLost();
    throw error;
  }
  return (response.status === 204 ? undefined : await response.json()) as T;
}

export const isNotFound = (error: unknown) => error instanceof ApiError && error.status === 404;
