// Where the executor's columns come from, decoded once: a bounded in-memory cache of decoded
// columns per data file (Parquet parts and sealed segments never change, so a file's columns
// stay valid until the cache drops them), plus the not-yet-sealed rows of a query's snapshot,
// decoded per query. Least recently used columns go first once `bytesMax` is passed.
import { tableFromIPC, type Table, type Vector } from "apache-arrow";
import { ParquetFile } from "parquet-wasm";
import { join } from "node:path";
import { readSegmentTable } from "../storage/data-files.ts";
import type { PartitionSnapshot } from "../storage/event-store.ts";
import { columnBytes, int32Column, numberColumn, textColumn, timestampColumn, type Column } from "./columns.ts";

/** One unit of stored data a query reads: a Parquet part, a sealed segment, or buffered rows. */
export type ChunkRef =
  | { kind: "part"; id: string; path: string; rows: number; day: string }
  | { kind: "segment"; id: string; path: string; offset: number; bytes: number; rows: number }
  | { kind: "buffer"; id: string; ipc: Uint8Array; rows: number };

let bufferSnapshots = 0;

/** A storage snapshot of one partition as chunks (ids are absolute paths, unique across regions; each buffer gets its own id). */
export function snapshotChunks(snapshot: PartitionSnapshot, dataDir: string): ChunkRef[] {
  return [
    ...snapshot.parts.map((part): ChunkRef => ({ kind: "part", id: join(dataDir, part.file), path: join(dataDir, part.file), rows: part.rows, day: part.day })),
    ...snapshot.segments.map((segment): ChunkRef => ({
      kind: "segment", id: `${join(dataDir, segment.file)}@${segment.offset}`, path: join(dataDir, segment.file), offset: segment.offset, bytes: segment.bytes, rows: segment.rows,
    })),
    ...(snapshot.buffered ? [{ kind: "buffer", id: `buffer-${++bufferSnapshots}`, ipc: snapshot.buffered, rows: snapshot.bufferedRows } satisfies ChunkRef] : []),
  ];
}

/** What a column in a file holds: the type names the executor distinguishes. */
export type ColumnType = "text" | "bool" | "number" | "int32" | "timestamp";

type Decoded = Column | Float64Array | Int32Array;

/** Rows per batch when reading Parquet (the default of 1,024 makes thousands of tiny batches). */
const parquetBatchRows = 128 * 1024;

export const defaultColumnCacheBytes = 512 * 1024 * 1024;

function columnType(typeName: string): ColumnType {
  if (typeName === "Float64") return "number";
  if (typeName === "Int32") return "int32";
  if (typeName.startsWith("Timestamp")) return "timestamp";
  if (typeName === "Bool") return "bool";
  return "text";
}

function decode(vector: Vector, type: ColumnType): Decoded {
  if (type === "number") return numberColumn(vector);
  if (type === "int32") return int32Column(vector);
  if (type === "timestamp") return timestampColumn(vector);
  return textColumn(vector);
}

export class ChunkStore {
  private readonly cache = new Map<string, { value: Decoded; bytes: number }>();
  private readonly schemas = new Map<string, Map<string, ColumnType>>();
  private cachedBytes = 0;
  /** Rows of buffered chunks, decoded once per query (their id names the snapshot). */
  private readonly transient = new Map<string, Table>();

  constructor(private readonly bytesMax = defaultColumnCacheBytes) {}

  /** Column names and types of a chunk. */
  async schema(ref: ChunkRef): Promise<Map<string, ColumnType>> {
    const known = this.schemas.get(ref.id);
    if (known) return known;
    let fields: { name: string; type: unknown }[];
    if (ref.kind === "part") {
      const file = await ParquetFile.fromFile(Bun.file(ref.path));
      try {
        fields = tableFromIPC(file.schema().intoIPCStream()).schema.fields;
      } finally {
        file.free();
      }
    } else fields = this.table(ref).schema.fields;
    const schema = new Map(fields.map((field) => [field.name, columnType(String(field.type))] as const));
    if (ref.kind !== "buffer") this.schemas.set(ref.id, schema);
    return schema;
  }

  private table(ref: Exclude<ChunkRef, { kind: "part" }>): Table {
    if (ref.kind === "segment") return readSegmentTable(ref.path, ref);
    let table = this.transient.get(ref.id);
    if (!table) {
      table = tableFromIPC(ref.ipc);
      this.transient.set(ref.id, table);
    }
    return table;
  }

  /** Decoded columns of a chunk (absent names are left out), reading only what the cache lacks. */
  async columns(ref: ChunkRef, names: string[]): Promise<Map<string, Decoded>> {
    const schema = await this.schema(ref);
    const found = new Map<string, Decoded>();
    const missing: string[] = [];
    for (const name of names) {
      if (!schema.has(name)) continue;
      const hit = this.cache.get(`${ref.id}\u0000${name}`);
      if (hit) {
        // Re-inserting marks it most recently used.
        this.cache.delete(`${ref.id}\u0000${name}`);
        this.cache.set(`${ref.id}\u0000${name}`, hit);
        found.set(name, hit.value);
      } else missing.push(name);
    }
    if (missing.length === 0) return found;
    let table: Table;
    if (ref.kind === "part") {
      const file = await ParquetFile.fromFile(Bun.file(ref.path));
      try {
        table = tableFromIPC((await file.read({ columns: missing, batchSize: parquetBatchRows })).intoIPCStream());
      } finally {
        file.free();
      }
    } else table = this.table(ref);
    for (const name of missing) {
      const value = decode(table.getChild(name)!, schema.get(name)!);
      found.set(name, value);
      if (ref.kind !== "buffer") this.remember(`${ref.id}\u0000${name}`, value);
    }
    return found;
  }

  private remember(key: string, value: Decoded): void {
    const bytes = columnBytes(value);
    this.cache.set(key, { value, bytes });
    this.cachedBytes += bytes;
    for (const [oldKey, entry] of this.cache) {
      if (this.cachedBytes <= this.bytesMax) break;
      this.cache.delete(oldKey);
      this.cachedBytes -= entry.bytes;
    }
  }

  /** Forgets the buffered rows of a finished query. */
  release(refs: ChunkRef[]): void {
    for (const ref of refs) if (ref.kind === "buffer") this.transient.delete(ref.id);
  }

  stats(): { columns: number; bytes: number } {
    return { columns: this.cache.size, bytes: this.cachedBytes };
  }
}
