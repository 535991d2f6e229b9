// Page sizes, cursors and search parameters of the region's listings. A cursor is opaque to clients: base64url
// JSON of where the previous page ended, checked on the way back in.
import { badRequest } from "./region-access.ts";

export const pageSizeDefault = 100;
export const pageSizeMax = 1000;

/** `limit` from the query string: 1 to pageSizeMax, pageSizeDefault when absent. */
export function pageLimit(query: URLSearchParams): number {
  const given = query.get("limit");
  if (given === null) return pageSizeDefault;
  const limit = Number(given);
  if (!/^\d+$/.test(given) || limit < 1 || limit > pageSizeMax) throw badRequest(`limit must be an integer from 1 to ${pageSizeMax}`);
  return limit;
}

/** Search text and property names longer than this cannot match anything stored. */
const searchLengthMax = 200;

/** An optional text parameter: absent, or 1 to searchLengthMax characters. */
export function textParam(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (value === "" || value.length > searchLengthMax) throw badRequest(`${name} must be 1 to ${searchLengthMax} characters`);
  return value;
}

export const encodeCursor = (position: unknown): string => Buffer.from(JSON.stringify(position)).toString("base64url");

/** The position a cursor names, or null without one; a cursor this listing did not give is 400. */
export function decodeCursor<T>(query: URLSearchParams, isPosition: (value: unknown) => value is T): T | null {
  const cursor = query.get("cursor");
  if (cursor === null) return null;
  try {
    const position: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (isPosition(position)) return position;
  } catch {
    // Not base64url JSON: refused below like any other foreign cursor.
  }
  throw badRequest("cursor is not one this listing gave");
}

export interface Page<Dto> {
  results: Dto[];
  next_cursor: string | null;
}

/** A page of results and the cursor of the position the next page starts from (null: the last page). */
export const pageAt = <Dto>(results: Dto[], next: unknown | null): Page<Dto> => ({ results, next_cursor: next === null ? null : encodeCursor(next) });

/** A page of `limit` results from `rows` (fetched as limit + 1), and the cursor of the next page. */
export function page<Row, Dto>(rows: Row[], limit: number, toDto: (row: Row) => Dto, positionOf: (row: Row) => unknown): Page<Dto> {
  const shown = rows.slice(0, limit);
  return pageAt(shown.map(toDto), rows.length > limit ? positionOf(shown.at(-1)!) : null);
}
