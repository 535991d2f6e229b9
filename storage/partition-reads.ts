// Reads of one partition's stored events straight from its files (the engine reads columns
// through its own cache instead): the Parquet parts and sealed segments the manifest names,
// then the rows not sealed yet.
import { join } from "node:path";
import type { Table } from "apache-arrow";
import { readParquetTable, readSegmentTable } from "./data-files.ts";
import type { Manifest } from "./manifest.ts";

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

