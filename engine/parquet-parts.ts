// Parquet parts through parquet-wasm: what parquet/part-reader.ts falls back to for a part or
// column its own reader does not decode. Parts are opened by ranges (storage/data-files.ts
// openParquetFile). A query reads every part's schema before any column, so a part opened
// for its schema stays open (its parsed footer: a few KB of wasm memory) for the column read
// that follows. Columns are taken out of parquet-wasm's memory directly (arrow-ffi.ts).
import type { ParquetFile } from "parquet-wasm";
import { openParquetFile, parquetWasm } from "../storage/data-files.ts";
import { ffiColumns, ffiColumnType, ffiFields, type FfiField } from "./arrow-ffi.ts";
import type { ColumnType } from "./chunk-store.ts";
import type { ArrowData } from "./columns.ts";

/** Rows per batch when reading Parquet (the default of 1,024 makes thousands of tiny batches). */
const parquetBatchRows = 128 * 1024;

/**
 * Parts kept open between their schema read and their column read. An open part holds about
 * 40 KB of wasm memory, which never shrinks: 512 bound it to about 20 MB (a 1M-event range is
 * 76 parts; past the bound a part is opened again for its columns).
 */
const openPartsMax = 512;

export class ParquetParts {
  /** Parts opened for their schema and not yet read, oldest first. */
  private readonly open = new Map<string, ParquetFile>();

  constructor(private readonly openMax = openPartsMax) {}

  /** Column names and types of a part, which stays open for a column read. */
  async schema(path: string): Promise<Map<string, ColumnType>> {
    const part = this.take(path) ?? (await openParquetFile(path));
    const exported = part.schema().intoFFI();
    let fields: FfiField[];
    try {
      const address = exported.addr();
      fields = ffiFields(parquetWasm().wasmMemory().buffer, address);
    } finally {
      exported.free();
    }
    this.keep(path, part);
    return new Map(fields.map((field) => [field.name, ffiColumnType(field)] as const));
  }

  /**
   * The named columns of a part (every name must be in the file), each turned into what
   * `decode` makes of its arrays; those view wasm memory and are gone once `decode` returns.
   */
  async read<T>(path: string, columns: string[], decode: (name: string, arrays: ArrowData[]) => T): Promise<Map<string, T>> {
    const part = this.take(path) ?? (await openParquetFile(path));
    try {
      const stream = (await part.read({ columns, batchSize: parquetBatchRows })).intoFFI();
      try {
        const batches = stream.arrayAddrs();
        const schema = stream.schemaAddr();
        // Taken after the last call into parquet-wasm: a call may grow the memory and detach older views.
        const memory = parquetWasm().wasmMemory().buffer;
        const arrays = ffiColumns(memory, ffiFields(memory, schema), batches);
        return new Map(columns.map((name) => [name, decode(name, arrays.get(name)!)] as const));
      } finally {
        stream.free();
      }
    } finally {
      part.free();
    }
  }

  /** Closes a part kept open for a column read that is not coming (its columns were cached). */
  close(path: string): void {
    this.take(path)?.free();
  }

  /** Removes an open part from the map, so no eviction frees it while a caller uses it. */
  private take(path: string): ParquetFile | undefined {
    const part = this.open.get(path);
    this.open.delete(path);
    return part;
  }

  private keep(path: string, part: ParquetFile): void {
    this.open.set(path, part);
    if (this.open.size > this.openMax) {
      const [oldest] = this.open.keys();
      this.take(oldest!)?.free();
    }
  }
}
