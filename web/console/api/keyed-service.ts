// Calls to a service the same process serves under its own prefix with keys of its own (the
// messaging gateway, the mail API), not the console's session: the key goes in the service's
// header to its prefix and nowhere else, never in a URL, and no cookie goes with it.
import { errorFromResponse } from "./errors.ts";

export interface KeyedRequest {
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * The service's refusal as an error the pages describe. Its 5xx answers say what failed in
 * words meant for people, which the console's generic "could not answer" would hide: those
 * become plain errors carrying the service's message.
 */
export async function keyedServiceError(response: Response): Promise<Error> {
  const error = await errorFromResponse(response);
  return error.status >= 500 && error.code !== "http_error" ? new Error(error.message) : error;
}

/** Requests to the service at `base`, the key sent in the headers `keyHeaders` makes of it. */
export function keyedService(base: string, keyHeaders: (key: string) => Record<string, string>) {
  async function send(key: string, method: string, path: string, request: KeyedRequest = {}): Promise<Response> {
    const headers: Record<string, string> = { ...keyHeaders(key), ...request.headers };
    if (request.body !== undefined) headers["Content-Type"] = "application/json";
    return fetch(`${base}${path}`, {
      method,
      credentials: "omit",
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
  }

  async function json<T>(key: string, method: string, path: string, request: KeyedRequest = {}): Promise<T> {
    const response = await send(key, method, path, { ...request, headers: { Accept: "application/json", ...request.headers } });
    if (!response.ok) throw await keyedServiceError(response);
    return (await response.json()) as T;
  }

  return { send, json };
}

/** `path` with the query's non-empty values. */
export const withQuery = (path: string, query: Record<string, string | null | undefined>) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
};
