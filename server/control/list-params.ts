// Query parameters the console's list routes share: page size and offset (answers carry
// `next_offset`, null on the last page), search text, and repeated `tag` filters. Bad values
// are a 400 naming the parameter, never silently clamped.
import { validation } from "../http/errors.ts";
import { tagLengthMax } from "./tags.ts";

export const listPageSizeDefault = 50;
export const listPageSizeMax = 200;
/** An offset past this is refused: nobody pages that far, and it bounds the work a request asks for. */
export const listOffsetMax = 100_000;
export const searchLengthMax = 200;
/** `tag` filters per request. */
export const tagFiltersMax = 10;

export interface ListPage {
  limit: number;
  offset: number;
}

function integerParam(query: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
  const given = query.get(name);
  if (given === null) return fallback;
  const value = Number(given);
  if (!/^\d+$/.test(given) || value < min || value > max) throw validation(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

export function listPage(query: URLSearchParams): ListPage {
  return { limit: integerParam(query, "limit", 1, listPageSizeMax, listPageSizeDefault), offset: integerParam(query, "offset", 0, listOffsetMax, 0) };
}

/** The page of `rows` (fetched with one extra row past the page) and the offset of the next page. */
export function pageOf<T>(rows: T[], page: ListPage): { rows: T[]; nextOffset: number | null } {
  const more = rows.length > page.limit;
  return { rows: more ? rows.slice(0, page.limit) : rows, nextOffset: more ? page.offset + page.limit : null };
}

/** `search`: absent, or 1 to searchLengthMax characters (matched case-insensitively as a substring). */
export function searchParam(query: URLSearchParams): string | undefined {
  const value = query.get("search");
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (trimmed === "" || trimmed.length > searchLengthMax) throw validation(`search must be 1 to ${searchLengthMax} characters`);
  return trimmed;
}

/** Repeated `tag` parameters: a resource must carry every one. */
export function tagParams(query: URLSearchParams): string[] {
  const tags = query.getAll("tag").map((tag) => tag.trim());
  if (tags.length > tagFiltersMax) throw validation(`at most ${tagFiltersMax} tag filters`);
  for (const tag of tags) if (tag === "" || tag.length > tagLengthMax) throw validation(`tag must be 1 to ${tagLengthMax} characters`);
  return tags;
}

/** A boolean parameter: absent, `true` or `false`. */
export function booleanParam(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (value !== "true" && value !== "false") throw validation(`${name} must be true or false`);
  return value === "true";
}
