// JSON calls to a project environment's region API ({region_api_url}/query, /sql, /persons, …)
// with its region token (state/region-tokens.ts). Refusals become ApiErrors, as the console
// API's do, so pages show them the same way.
import { errorFromResponse } from "./errors.ts";
import type { RegionTokenSource } from "./region-token.ts";

export async function regionJson<T>(tokens: RegionTokenSource, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await tokens.fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw await errorFromResponse(response);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** A query string from the parameters that are set (null and undefined are left out). */
export function queryString(params: Record<string, string | number | boolean | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== null && value !== undefined && value !== "") search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}
