// Which row groups of a part may hold rows a query reads, from the part's summary alone
// (row-group-summary.ts): a row group may when its timestamps meet [from, to) and, for a
// query that reads only some events (engine/read-scope.ts), when it holds one of them.
// Anything the summary does not know (no statistics, events not listed) may hold rows.
import { partSummary, type RowGroupSummary } from "./row-group-summary.ts";

/** What a query reads: rows with from <= timestamp < to, of these events only (null: of any event). */
export interface ReadScope {
  from: number;
  to: number;
  events: ReadonlySet<string> | null;
}

export function rowGroupMayHold(group: RowGroupSummary, scope: ReadScope): boolean {
  if (group.rows === 0) return false;
  if (group.times !== null && (group.times.max < scope.from || group.times.min >= scope.to)) return false;
  if (scope.events === null || group.events === null) return true;
  for (const event of scope.events) if (group.events.has(event)) return true;
  return false;
}

/** Whether each row group of the part at `path` may hold rows of `scope`. */
export function rowGroupsToRead(path: string, scope: ReadScope): boolean[] | null {
  const summary = partSummary(path);
  return summary === null ? null : summary.rowGroups.map((group) => rowGroupMayHold(group, scope));
}

/**
 * Whether the part at `path` may hold rows of `scope` (false only when no row group may).
 * Reading some row groups of a part is left to the reader: the column cache and decoding work
 * a part at a time, and parts hold one row group as storage writes them.
 */
export function partMayHold(path: string, scope: ReadScope): boolean {
  const groups = rowGroupsToRead(path, scope);
  return groups === null || groups.some((may) => may);
}
