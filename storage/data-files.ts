// Reading and writing the two kinds of data file: seal files of Arrow IPC segments (recent
// data) and compacted zstd Parquet parts (one per project, environment and day), written by
// storage/parquet/ and read back with parquet-wasm.
//
// A seal writes one file holding a segment per project environment, each a complete Arrow IPC
// stream at a byte range the manifest records. One file per seal instead of one per segment:
// with a hundred busy projects, creating, syncing and naming a hundred small files per seal
// cost the storage worker more than building the segments (measured).
import { closeSync, fdatasyncSync, fsyncSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { AsyncByteQueue, RecordBatchStreamWriter, tableFromIPC, type Table } from "apache-arrow";
import type * as ParquetWasm from "parquet-wasm";
import { fsyncDirectory, writeAll, writeFileAtomic } from "./atomic-file.ts";
import { encodeParquetFile } from "./parquet/parquet-file-writer.ts";

/** Rows per Parquet row group: large enough for good compression, small enough to skip by statistics. */
export const parquetRowGroupRows = 128 * 1024;

/** Where one segment sits in its seal file. */
export interface SegmentRange {
  offset: number;
  bytes: number;
}

/**
 * An Arrow IPC writer's output kept as the chunks it writes (messages, padding, each column's
 * buffers), so a seal writes them with writev instead of first copying them into one buffer
 * (measured: a seal of 400k events writes about 97 MB, and dropping the copy took its cost
 * from about 0.95 to 0.70 us per event).
 */
class ChunkSink extends AsyncByteQueue {
  readonly chunks: Uint8Array[] = [];
  bytes = 0;

  override write(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    this.chunks.push(chunk);
    this.bytes += chunk.byteLength;
  }
}

/** The table as one Arrow IPC stream, in the chunks the writer produced. */
function ipcStreamChunks(table: Table): ChunkSink {
  const sink = new ChunkSink();
  const writer = new RecordBatchStreamWriter();
  writer.reset(sink);
  writer.write(table);
  writer.finish();
  return sink;
}

/**
 * A seal file is synced each time this much more of it is written, not only at its end. A seal
 * writes 100-160 MB, and one fsync at the end made the disk write it all at once: the WAL's
 * syncs, which ingest answers wait for, waited behind it for 30-90 ms at every seal. Synced in
 * 8 MB steps, half-load p99 fell from 41-50 ms to 22-41 ms (paired probes; 4 and 16 MB did as well).
 */
const sealSyncBytes = 8 * 1024 * 1024;

/**
 * Writes the tables one after the other as Arrow IPC streams into a new file and syncs it and
 * its directory. Tables are taken one at a time, so only one segment's stream is in memory
 * at once. The file needs no temporary name: until the manifest names it, start-up removes it
 * as a leftover.
 */
export function writeSealFile(path: string, tables: Iterable<Table>): SegmentRange[] {
  const fd = openSync(path, "w");
  const ranges: SegmentRange[] = [];
  try {
    let offset = 0;
    let synced = 0;
    for (const table of tables) {
      const stream = ipcStreamChunks(table);
      writeAll(fd, stream.chunks);
      ranges.push({ offset, bytes: stream.bytes });
      offset += stream.bytes;
      if (offset - synced >= sealSyncBytes) {
        fdatasyncSync(fd);
        synced = offset;
      }
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncDirectory(dirname(path));
  return ranges;
}

/** Bytes [start, start + length) of a file, read synchronously. */
export function readFileRange(path: string, start: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  const fd = openSync(path, "r");
  try {
    let read = 0;
    while (read < length) {
      const got = readSync(fd, bytes, read, length - read, start + read);
      if (got === 0) throw new Error(`${path} ends before byte ${start + length}`);
      read += got;
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}

export const readSegmentTable = (path: string, range: SegmentRange): Table => tableFromIPC(readFileRange(path, range.offset, range.bytes));

let loadedParquetWasm: typeof ParquetWasm | null = null;

/**
 * parquet-wasm, loaded on first use: loading it compiles its 5 MB WebAssembly module (a few
 * hundred milliseconds of CPU, and the instance's memory) in each thread that imports it, and
 * every region's storage and compaction workers import this file but read Parquet only when
 * they merge or erase parts, so a service of four regions paid eight compilations on start
 * that most of those threads never used (and so did each /sql sandbox process, which reads
 * through DuckDB). Its package's Node build is CommonJS, so it loads
 * synchronously here, once per thread.
 */
export const parquetWasm = (): typeof ParquetWasm => (loadedParquetWasm ??= require("parquet-wasm") as typeof ParquetWasm);

/**
 * A Parquet part opened with parquet-wasm, read by ranges. Measured on a cold query over 76
 * parts (warm page cache): parquet-wasm's reader over a Bun file Blob pays an async round
 * trip per `Blob.slice().arrayBuffer()` (the top self-time item), and reading whole files
 * instead copies mostly columns nobody reads. So it gets a Blob look-alike (what `fromFile`
 * uses of a Blob: its `size`, and `slice(start, end).arrayBuffer()`) whose slices are
 * synchronous positioned reads of just the requested bytes: the footer, then the column
 * chunks a read asks for.
 */
export function openParquetFile(path: string): Promise<ParquetWasm.ParquetFile> {
  const ranges = {
    size: statSync(path).size,
    slice: (start: number, end: number) => ({ arrayBuffer: async () => readFileRange(path, start, end - start).buffer }),
  };
  return parquetWasm().ParquetFile.fromFile(ranges as unknown as Blob);
}

/** Writes a table (rows already deduplicated and sorted) as one Parquet file; returns its size. */
export function writeParquetPart(path: string, table: Table): number {
  const bytes = encodeParquetFile(table, parquetRowGroupRows);
  writeFileAtomic(path, bytes);
  return bytes.byteLength;
}

/** Rows per batch when reading a part back: one batch per file (parts hold at most a few row groups). */
export const readBatchRows = 1 << 20;

/** A Parquet file's bytes as one Arrow table, in one batch. */
export const parquetTable = (bytes: Uint8Array): Table => tableFromIPC(parquetWasm().readParquet(bytes, { batchSize: readBatchRows }).intoIPCStream());

export const readParquetTable = (path: string): Table => parquetTable(readFileSync(path));

/**
 * One column of a Parquet part (readParquet decodes every column whatever it is asked; the
 * file reader decodes only the one, about a third of the time for a part's uuids, and reads
 * only its bytes).
 */
export async function readParquetColumn(path: string, column: string): Promise<Table> {
  const file = await openParquetFile(path);
  try {
    return tableFromIPC((await file.read({ columns: [column], batchSize: readBatchRows })).intoIPCStream());
  } finally {
    file.free();
  }
}
