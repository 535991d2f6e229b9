// Reading and writing the two kinds of data file: sealed Arrow IPC segments (recent data)
// and compacted zstd Parquet parts (one per project, environment and day).
import { readFileSync } from "node:fs";
import { tableFromIPC, tableToIPC, type Table } from "apache-arrow";
import { Compression, Table as WasmTable, WriterPropertiesBuilder, readParquet, writeParquet } from "parquet-wasm";
import { writeFileAtomic } from "./atomic-file.ts";
import { eventsToTable, tableToEvents } from "./event-columns.ts";
import type { StoredEvent } from "./event-record.ts";

/** Rows per Parquet row group: large enough for good compression, small enough to skip by statistics. */
export const parquetRowGroupRows = 128 * 1024;

export function writeSegment(path: string, rows: StoredEvent[]): void {
  writeFileAtomic(path, tableToIPC(eventsToTable(rows), "file"));
}

export const readSegmentTable = (path: string): Table => tableFromIPC(readFileSync(path));
export const readSegment = (path: string): StoredEvent[] => tableToEvents(readSegmentTable(path));

/** Writes a table (rows already deduplicated and sorted) as one Parquet file; returns its size. */
export function writeParquetPart(path: string, table: Table): number {
  const properties = new WriterPropertiesBuilder()
    .setCompression(Compression.ZSTD)
    .setMaxRowGroupSize(parquetRowGroupRows)
    .setCreatedBy("svc-analytics")
    .build();
  const wasmTable = WasmTable.fromIPCStream(tableToIPC(table, "stream"));
  const bytes = writeParquet(wasmTable, properties);
  writeFileAtomic(path, bytes);
  return bytes.byteLength;
}

export const readParquetTable = (path: string): Table => tableFromIPC(readParquet(readFileSync(path)).intoIPCStream());
export const readParquetPart = (path: string): StoredEvent[] => tableToEvents(readParquetTable(path));
