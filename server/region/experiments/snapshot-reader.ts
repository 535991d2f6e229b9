// The experiment passes read a partition snapshot the way the executor does: through the
// shared column cache, one chunk at a time, each row's person mapped to the canonical person
// (merges applied, as every person count of the executor), and stop at the query time-out.
// Properties are read per chunk, as text (to match flag keys and variants whatever type a
// file stored them as) or as numbers (to sum a metric's property).
import { mayHoldRange, type ChunkRef, type ChunkStore, type ColumnType } from "../../../engine/chunk-store.ts";
import { nullTextColumn, numbersAsText, type Column, type Decoded, type TextColumn } from "../../../engine/columns.ts";
import { numericValues } from "../../../engine/numeric.ts";
import { mixedPropertyColumn, propertyColumn, queryRowsMax, storedProperty } from "../../../engine/query-data.ts";
import { ApiError } from "../../http/errors.ts";

const fixedColumns = ["timestamp", "event", "person_index"];

export class ChunkView {
  private personRows: Int32Array | null = null;

  constructor(
    private readonly reader: SnapshotReader,
    readonly ref: ChunkRef,
    private readonly decoded: Map<string, Decoded>,
    private readonly schema: Map<string, ColumnType>,
  ) {}

  get rows(): number {
    return this.ref.rows;
  }

  get timestamps(): Float64Array {
    return this.decoded.get("timestamp") as Float64Array;
  }

  get events(): TextColumn {
    return (this.decoded.get("event") as TextColumn | undefined) ?? nullTextColumn(this.rows);
  }

  /** Each row's canonical person; computed on first use, as chunks without the events sought never need it. */
  get persons(): Int32Array {
    this.personRows ??= this.reader.personsOf(this.ref, this.decoded.get("person_index") as Int32Array);
    return this.personRows;
  }

  private property(key: string): Column | null {
    return storedProperty(this.schema, this.decoded, key);
  }

  /** The property as text: numbers as JavaScript writes them, booleans as "true" / "false". */
  propertyText(key: string): TextColumn {
    const column = this.property(key);
    if (column === null) return nullTextColumn(this.rows);
    return column.kind === "number" ? numbersAsText(column) : column;
  }

  /** The property's numeric reading per row; NaN where it is absent or not a number. */
  propertyNumbers(key: string): Float64Array {
    const column = this.property(key);
    return column === null ? new Float64Array(this.rows).fill(NaN) : numericValues(column);
  }
}

export class SnapshotReader {
  constructor(
    private readonly store: ChunkStore,
    private readonly chunks: ChunkRef[],
    private readonly canonical: Int32Array,
    private readonly deadline: number,
    private readonly timeoutMs: number,
  ) {}

  /** The chunks that may hold events in [from, to); past the spec's rows-read limit, 422. */
  chunksIn(from: number, to: number): ChunkRef[] {
    const chunks = this.chunks.filter((ref) => mayHoldRange(ref, from, to));
    const rows = chunks.reduce((sum, ref) => sum + ref.rows, 0);
    if (rows > queryRowsMax) throw new ApiError(422, "query_too_large", `the analysis would read ${rows} rows; at most ${queryRowsMax} (the experiment's range is too long)`);
    return chunks;
  }

  async load(ref: ChunkRef, propertyKeys: string[]): Promise<ChunkView> {
    if (Date.now() > this.deadline) {
      throw new ApiError(422, "query_too_large", `the analysis ran past the ${this.timeoutMs / 1000} s limit; fewer metrics or a shorter experiment take less`);
    }
    const names = [...fixedColumns, ...propertyKeys.flatMap((key) => [propertyColumn(key), mixedPropertyColumn(key)])];
    const decoded = await this.store.columns(ref, names);
    // Read after the columns, which read (and keep) the schema first.
    return new ChunkView(this, ref, decoded, await this.store.schema(ref));
  }

  personsOf(ref: ChunkRef, personIndex: Int32Array): Int32Array {
    return this.store.persons(ref, personIndex, this.canonical);
  }
}
