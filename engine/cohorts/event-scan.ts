// Reading a partition snapshot for cohort criteria: the chunks that may hold rows in a range
// (parts of other days, and parts whose footer lists none of the events sought, are skipped as
// a query skips them), decoded through the shared column cache, each row's person mapped to
// the person it is now. The rows-read limit and the time-out are a query's.
import { mayHoldRange, type ChunkRef, type ChunkStore } from "../chunk-store.ts";
import { nullTextColumn, type TextColumn } from "../columns.ts";
import { partMayHold } from "../parquet/row-group-pruning.ts";
import { QueryLimitError } from "../query-data.ts";

export interface CohortScan {
  store: ChunkStore;
  chunks: ChunkRef[];
  canonical: Int32Array;
  /** Rows with timestamp >= now are not read: "in the last D days" ends now. */
  now: number;
  deadline: number;
  rowsMax: number;
}

/** One chunk's columns as a pass reads them: rows in [from, now) are those with from <= timestamps[row] < now. */
export interface ScannedChunk {
  timestamps: Float64Array;
  /** Each row's person now (merges applied). */
  persons: Int32Array;
  text(name: string): TextColumn;
}

/** Counts the rows read over every pass of one evaluation, against the query's limits. */
export class ScanBudget {
  rowsRead = 0;

  constructor(private readonly scan: CohortScan) {}

  get now(): number {
    return this.scan.now;
  }

  /** The chunks a pass over [from, now) of these events (null: any event) reads; past the rows limit, query_too_large. */
  chunksFor(from: number, events: ReadonlySet<string> | null): ChunkRef[] {
    const { chunks, now, rowsMax } = this.scan;
    const scope = { from, to: now, events };
    const read = chunks.filter((ref) => mayHoldRange(ref, from, now) && (ref.kind !== "part" || partMayHold(ref.path, scope)));
    this.rowsRead += read.reduce((sum, ref) => sum + ref.rows, 0);
    if (this.rowsRead > rowsMax) {
      throw new QueryLimitError("query_too_large", `the cohort would read ${this.rowsRead} rows; at most ${rowsMax} (use fewer days or fewer events)`);
    }
    return read;
  }

  /** Calls `visit` with each chunk's columns (`names` besides timestamp and person). */
  async forEachChunk(refs: ChunkRef[], names: string[], visit: (chunk: ScannedChunk) => void): Promise<void> {
    const { store, canonical, deadline } = this.scan;
    for (const ref of refs) {
      if (Date.now() > deadline) throw new QueryLimitError("timeout", "the cohort calculation ran past its time limit");
      const decoded = await store.columns(ref, ["timestamp", "person_index", ...names]);
      const rows = ref.rows;
      visit({
        timestamps: decoded.get("timestamp") as Float64Array,
        persons: store.persons(ref, decoded.get("person_index") as Int32Array, canonical),
        text: (name) => (decoded.get(name) as TextColumn | undefined) ?? nullTextColumn(rows),
      });
    }
  }
}
