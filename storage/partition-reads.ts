// Reads of one partition's stored events straight from its files (the engine reads columns
// through its own cache instead): the Parquet parts and sealed segments the manifest names,
// then the rows not sealed yet.
import { join } from "node:path";
import type { Table } from "apache-arrow";
import { vectorValues } from "./arrow-vectors.ts";
import { readParquetTable, readSegmentTable } from "./data-files.ts";
import { tableToEvents } from "./event-columns.ts";
import type { StoredEvent } from "./event-record.ts";
import type { Manifest } from "./manifest.ts";

/** Where a page of events newest first ended: the last event's timestamp and uuid. */
export interface EventCursor {
  timestamp: number;
  uuid: string;
}

/** A partition's data as tables: each Parquet part, each sealed segment, then `buffered` (if any). */
export function partitionTables(dataDir: string, manifest: Readonly<Manifest>, dataId: number, environment: string, buffered: Table | null): Table[] {
  const tables: Table[] = [];
  for (const part of manifest.parts) {
    if (part.dataId === dataId && part.environment === environment) tables.push(readParquetTable(join(dataDir, part.file)));
  }
  for (const segment of manifest.segments) {
    if (segment.dataId === dataId && segment.environment === environment) tables.push(readSegmentTable(join(dataDir, segment.file), segment));
  }
  if (buffered) tables.push(buffered);
  return tables;
}

/**
 * A person's events in `tables` (rows written with any of `personIndexes`), newest first by
 * (timestamp, uuid), only those before `before`, at most `limit`. Only the person_index column
 * of each table is scanned; rows become events only where the person is.
 */
export function personEventsIn(tables: readonly Table[], personIndexes: readonly number[], before: EventCursor | null, limit: number): StoredEvent[] {
  const wanted = new Set(personIndexes);
  const isBefore = (event: StoredEvent) =>
    before === null || event.timestamp < before.timestamp || (event.timestamp === before.timestamp && event.uuid < before.uuid);
  const found = new Map<string, StoredEvent>();
  const take = (events: StoredEvent[]) => {
    for (const event of events) if (isBefore(event) && !found.has(event.uuid)) found.set(event.uuid, event);
  };
  const fromTable = (table: Table) => {
    const people = vectorValues(table.getChild("person_index")!) as number[];
    const rows: number[] = [];
    for (let row = 0; row < people.length; row++) if (wanted.has(people[row]!)) rows.push(row);
    if (rows.length > 0) take(tableToEvents(table, rows));
  };
  for (const table of tables) fromTable(table);
  return [...found.values()]
    .sort((a, b) => b.timestamp - a.timestamp || (a.uuid < b.uuid ? 1 : a.uuid > b.uuid ? -1 : 0))
    .slice(0, limit);
}
