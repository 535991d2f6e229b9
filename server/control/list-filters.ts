// The SQL conditions the console's list routes share for `search` and `tag` (list-params.ts
// reads the parameters): text found in a name or description, case-insensitively and with no
// LIKE wildcards (so `%` and `_` are plain text), and a JSON tag array holding every tag.
import { sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { searchParam, tagParams } from "./list-params.ts";

export function searchAndTagFilters(query: URLSearchParams, columns: { name: SQLiteColumn; description: SQLiteColumn; tags: SQLiteColumn }): SQL[] {
  const where: SQL[] = [];
  const search = searchParam(query);
  if (search !== undefined) {
    const needle = search.toLowerCase();
    where.push(sql`(instr(lower(${columns.name}), ${needle}) > 0 OR instr(lower(coalesce(${columns.description}, '')), ${needle}) > 0)`);
  }
  for (const tag of tagParams(query)) where.push(sql`EXISTS (SELECT 1 FROM json_each(${columns.tags}) WHERE value = ${tag})`);
  return where;
}
