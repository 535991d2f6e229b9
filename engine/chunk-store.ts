// Where the executor's columns come from, decoded once: a bounded in-memory cache of decoded
// columns per data file (Parquet parts and sealed segments never change, so a file's columns
// stay valid until the cache drops them), plus the not-yet-sealed rows of a query's snapshot,
// decoded per query. Least recently used columns go first once `bytesMax` is passed.
import { tableFromIPC, type Table } from "apache-arrow";
import { join } from "node:path";
import { readSegmentTable } from "../storage/data-files.ts";
import type { PartitionSnapshot } from "../storage/event-store.ts";
import { columnBytes, decodeColumn, fromArrowData, type Decoded, type NumberColumn } from "./columns.ts";
import { PartReader } from "./parquet/part-reader.ts";
import type { DecodePool, DecodeTask } from "./parallel/decode-pool.ts";
import { sharedDecodePool } from "./parallel/shared-pool.ts";
import { canonicalPersons } from "./persons.ts";
import { dayMs } from "./time-zone.ts";

/** One unit of stored data a query reads: a Parquet part, a sealed segment, or buffered rows. */
export type ChunkRef =
  | { kind: "part"; id: string; path: string; rows: number; day: string }
  | { kind: "segment"; id: string; path: string; offset: number; bytes: number; rows: number }
  | { kind: "buffer"; id: string; ipc: Uint8Array; rows: number };

/** The UTC day a part holds, as [start, end) epoch ms; null for segments and buffered rows, which may hold any time. */
export function partDay(ref: ChunkRef): { start: number; end: number } | null {
  if (ref.kind !== "part") return null;
  const start = Date.parse(`${ref.day}T00:00:00Z`);
  return { start, end: start + dayMs };
}

/** A snapshot's parts grouped by UTC day (each day's start as epoch ms), oldest day first or newest first; segments and buffered rows are left out. */
export function partsByDay(chunks: readonly ChunkRef[], order: "oldest" | "newest"): { start: number; parts: ChunkRef[] }[] {
  const days = new Map<number, ChunkRef[]>();
  for (const ref of chunks) {
    const day = partDay(ref);
    if (day === null) continue;
    const parts = days.get(day.start);
    if (parts) parts.push(ref);
    else days.set(day.start, [ref]);
  }
  const sign = order === "oldest" ? 1 : -1;
  return [...days].map(([start, parts]) => ({ start, parts })).sort((a, b) => sign * (a.start - b.start));
}

/** Whether a chunk may hold instants in [from, to): parts outside it are never opened. */
export function mayHoldRange(ref: ChunkRef, from: number, to: number): boolean {
  const day = partDay(ref);
  return day === null || (day.start < to && day.end > from);
}

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

export const defaultColumnCacheBytes = 512 * 1024 * 1024;

function columnType(typeName: string): ColumnType {
  if (typeName === "Float64") return "number";
  if (typeName === "Int32") return "int32";
  if (typeName.startsWith("Timestamp")) return "timestamp";
  if (typeName === "Bool") return "bool";
  return "text";
}

/** Cache key suffix of a chunk's canonical persons (no file column starts with "#"). */
const personsKey = "\u0000#persons";
const weightsKey = "\u0000#weights";
/** The column of each row's sample rate (storage/event-columns.ts). */
export const sampleRateColumn = "sample_rate";

function weightsOf(rates: Float64Array): Float64Array | null {
  let sampled = false;
  for (let row = 0; row < rates.length && !sampled; row++) if (rates[row] !== 1) sampled = true;
  return sampled ? rates.map((rate) => 1 / rate) : null;
}

/**
 * Parts a query's read-ahead keeps queued or decoded for each decode worker: enough that a
 * worker always has the next part to start and the main thread a last one to take while it
 * waits. Bounds the memory of columns decoded but not yet in the cache (a 128k-row part's
 * columns are a few MB).
 */
export const readAheadPartsPerWorker = 4;

export class ChunkStore {
  /** `basis`: for derived entries, the input they were computed from. */
  private readonly cache = new Map<string, { value: Decoded; bytes: number; basis?: Int32Array }>();
  private readonly schemas = new Map<string, Map<string, ColumnType>>();
  private cachedBytes = 0;
  /** Rows of buffered chunks, decoded once per query (their id names the snapshot). */
  private readonly transient = new Map<string, Table>();
  private readonly parts = new PartReader();
  /** Worker reads of parts' columns, queued, under way or done, not yet taken into the cache. */
  private readonly pending = new Map<string, DecodeTask>();

  /** `pool`: decode workers that read parts ahead of a query (null: the main thread decodes alone). */
  constructor(private readonly bytesMax = defaultColumnCacheBytes, private readonly pool: DecodePool | null = sharedDecodePool()) {}

  /**
   * Starts decoding, in the pool's workers, the columns of the parts a query reads next (in
   * the order it will read them) that neither the cache nor an earlier read-ahead holds.
   */
  readAhead(next: ChunkRef[], names: string[]): void {
    if (this.pool === null) return;
    const window = readAheadPartsPerWorker * this.pool.workerCount;
    for (const ref of next.slice(0, window)) {
      if (ref.kind !== "part" || this.pending.has(ref.id)) continue;
      const schema = this.schemas.get(ref.id);
      if (!schema) continue;
      const missing = names.filter((name) => schema.has(name) && !this.cache.has(`${ref.id}\u0000${name}`));
      if (missing.length === 0) continue;
      const task = this.parts.readInWorker(ref.path, missing, schema, this.pool);
      if (task !== null) this.pending.set(ref.id, task);
    }
  }

  /**
   * The columns a read-ahead decoded for a part, once done. A read no worker has started is run
   * here; while a worker runs it, this thread decodes the last part no worker has started.
   */
  private async fromReadAhead(ref: ChunkRef, schema: Map<string, ColumnType>): Promise<Map<string, Decoded> | null> {
    const task = this.pending.get(ref.id);
    if (!task || this.pool === null) return null;
    this.pending.delete(ref.id);
    if (this.pool.takeBack(task)) await task.runHere(task);
    while (!task.settled) {
      const other = this.pool.takeLast();
      if (other === null) break;
      await other.runHere(other);
    }
    return this.parts.workerResult(task, schema);
  }

  /** Column names and types of a chunk. */
  async schema(ref: ChunkRef): Promise<Map<string, ColumnType>> {
    const known = this.schemas.get(ref.id);
    if (known) return known;
    const schema = ref.kind === "part"
      ? await this.parts.schema(ref.path)
      : new Map(this.table(ref).schema.fields.map((field) => [field.name, columnType(String(field.type))] as const));
    if (ref.kind !== "buffer") this.schemas.set(ref.id, schema);
    return schema;
  }

  /** The rows of a segment, or of unsealed rows (decoded once until release()), as a table. */
  table(ref: Exclude<ChunkRef, { kind: "part" }>): Table {
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
    if (missing.length === 0) {
      if (ref.kind === "part") this.parts.close(ref.path);
      return found;
    }
    const ahead = await this.fromReadAhead(ref, schema);
    for (const [name, value] of ahead ?? []) {
      const key = `${ref.id}\u0000${name}`;
      if (!this.cache.has(key)) this.remember(key, value);
      if (missing.includes(name)) found.set(name, value);
    }
    const rest = missing.filter((name) => !found.has(name));
    if (rest.length === 0) return found;
    for (const [name, value] of await this.decoded(ref, schema, rest)) {
      found.set(name, value);
      if (ref.kind !== "buffer") this.remember(`${ref.id}\u0000${name}`, value);
    }
    return found;
  }

  /** Columns of a chunk decoded from its file or rows (every name is in `schema`). */
  private async decoded(ref: ChunkRef, schema: Map<string, ColumnType>, names: string[]): Promise<Map<string, Decoded>> {
    if (ref.kind === "part") return this.parts.read(ref.path, names, schema);
    const table = this.table(ref);
    return new Map(names.map((name) => [name, decodeColumn(table.getChild(name)!.data.map(fromArrowData), schema.get(name)!)] as const));
  }

  /**
   * Each row's canonical person: `person_index` through the override array `canonical`. Kept
   * with the chunk's columns while the person store hands out the same override array (it is
   * replaced when persons merge), so repeated queries do not map every row again.
   */
  persons(ref: ChunkRef, personIndex: Int32Array, canonical: Int32Array): Int32Array {
    if (ref.kind === "buffer") return canonicalPersons(personIndex, canonical);
    const key = `${ref.id}${personsKey}`;
    const hit = this.cache.get(key);
    if (hit?.basis === canonical) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit.value as Int32Array;
    }
    if (hit) {
      this.cache.delete(key);
      this.cachedBytes -= hit.bytes;
    }
    const persons = canonicalPersons(personIndex, canonical);
    this.remember(key, persons, canonical);
    return persons;
  }

  /**
   * 1 / sample rate of each row, or null when every row was kept unsampled (most chunks):
   * kept with the chunk's columns, so a query does not read every rate again to find that out.
   * A part whose rates are one value throughout (its footer and dictionaries say so) is not
   * decoded at all, and the rates themselves are not kept.
   */
  async weights(ref: ChunkRef): Promise<Float64Array | null> {
    const schema = await this.schema(ref);
    if (!schema.has(sampleRateColumn)) return null;
    const rates = async () => ((await this.decoded(ref, schema, [sampleRateColumn])).get(sampleRateColumn) as NumberColumn).values;
    if (ref.kind === "buffer") return weightsOf(await rates());
    const key = `${ref.id}${weightsKey}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      const weights = hit.value as Float64Array;
      return weights.length === 0 ? null : weights;
    }
    const constant = ref.kind === "part" ? this.parts.constantNumber(ref.path, sampleRateColumn) : null;
    const weights = constant === null ? weightsOf(await rates()) : constant === 1 ? null : new Float64Array(ref.rows).fill(1 / constant);
    this.remember(key, weights ?? new Float64Array(0));
    return weights;
  }

  private remember(key: string, value: Decoded, basis?: Int32Array): void {
    const bytes = columnBytes(value);
    this.cache.set(key, { value, bytes, basis });
    this.cachedBytes += bytes;
    for (const [oldKey, entry] of this.cache) {
      if (this.cachedBytes <= this.bytesMax) break;
      this.cache.delete(oldKey);
      this.cachedBytes -= entry.bytes;
    }
  }

  /** Forgets the buffered rows of a finished query and closes the parts it opened but did not read. */
  release(refs: ChunkRef[]): void {
    for (const ref of refs) {
      if (ref.kind === "buffer") this.transient.delete(ref.id);
      else if (ref.kind === "part") {
        this.parts.close(ref.path);
        const task = this.pending.get(ref.id);
        if (task) {
          // A read-ahead the query did not take: dropped if queued, its result let go if under way.
          this.pool?.takeBack(task);
          this.pending.delete(ref.id);
        }
      }
    }
  }

  /**
   * Drops the decoded columns of every file under `dir`, and the read-aheads of them not taken
   * yet (an erasure: the files they came from are gone, and a cached column would keep their
   * values in memory); how many entries.
   */
  forgetFilesUnder(dir: string): number {
    let forgotten = 0;
    for (const [key, entry] of [...this.cache]) {
      if (!key.startsWith(dir)) continue;
      this.cache.delete(key);
      this.cachedBytes -= entry.bytes;
      forgotten++;
    }
    for (const key of [...this.schemas.keys()]) if (key.startsWith(dir)) this.schemas.delete(key);
    // A read-ahead would bring their columns back for the query that asked for it.
    for (const [id, task] of [...this.pending]) {
      if (!id.startsWith(dir)) continue;
      this.pool?.takeBack(task);
      this.pending.delete(id);
    }
    return forgotten;
  }

  stats(): { columns: number; bytes: number } {
    return { columns: this.cache.size, bytes: this.cachedBytes };
  }
}
