// The work of one compaction, apart from the store that commits it: a partition's sealed
// segments become one level-0 Parquet part per UTC day (deduplicated, sorted), and parts then
// merge in tiers. It reads files and returns the new parts' bytes; it writes nothing and
// changes no manifest, so it can run on another thread (compaction-thread.ts) while the store
// goes on sealing, and the store alone names, writes and commits what it returns.
import { join } from "node:path";
import { parquetRowGroupRows, parquetTable, readParquetTable, readSegmentTable } from "./data-files.ts";
import { encodeParquetFile } from "./parquet/parquet-file-writer.ts";
import { MergeInput } from "./table-merge.ts";
import { tableBytes } from "./event-columns.ts";
import type { PartEntry, SegmentEntry } from "./manifest.ts";

/** This many Parquet parts of one level for one day merge into one part of the next level. */
export const partsPerMerge = 8;
/**
 * The level of parts written by a compaction or merge whose rows would have taken more than
 * partBytesMax in one part, so that it wrote several: they never merge again (merging them
 * could split again, level after level, without end).
 */
export const splitPartLevel = 1000;
/**
 * Rows split into parts fill each to this share of partBytesMax, in runs of equal rows: the
 * estimate is an average per row, and each part carries its own dictionaries besides.
 */
const splitPartFill = 0.9;

const dayMs = 86_400_000;
const utcDay = (timestamp: number) => new Date(timestamp).toISOString().slice(0, 10);

export interface CompactionJob {
  dataDir: string;
  /** The partition's sealed segments, all of which this compaction takes. */
  segments: SegmentEntry[];
  /** The partition's parts in the manifest now. */
  parts: PartEntry[];
  /** A merge of parts that would give more rows than this does not happen. */
  partRowsMax: number;
  /** No merge takes parts that take more bytes in memory together (as Arrow buffers), and no part written takes more. */
  partBytesMax: number;
}

/** A part to write: its Parquet bytes, for the store to name and write. */
export interface CompactedPart {
  day: string;
  level: number;
  rows: number;
  /** Bytes of the part's rows as Arrow buffers (what reading it back takes). */
  arrowBytes: number;
  parquet: Uint8Array;
}

export interface CompactionOutcome {
  /** New parts, in the order they were made (a part made and merged away within the job is not here). */
  written: CompactedPart[];
  /** Files of the job's `parts` that merged into a new part: they leave the manifest. */
  replaced: string[];
}

/** A part during the job: one in the manifest (its file) or one made by this job (its bytes). */
type WorkingPart = { day: string; level: number; rows: number; arrowBytes: number } & ({ file: string } | { made: CompactedPart });

const allRows = (length: number) => Int32Array.from({ length }, (_, row) => row);

/** Row numbers per UTC day of their timestamps, in row order. */
function rowsByDay(timestamps: Float64Array): Map<string, number[]> {
  const byDayNumber = new Map<number, number[]>();
  for (let row = 0; row < timestamps.length; row++) {
    const dayNumber = Math.floor(timestamps[row]! / dayMs);
    const rows = byDayNumber.get(dayNumber);
    if (rows) rows.push(row);
    else byDayNumber.set(dayNumber, [row]);
  }
  return new Map([...byDayNumber].map(([dayNumber, rows]) => [utcDay(dayNumber * dayMs), rows]));
}

/**
 * The parts of one day and level to merge next, in write order, or null. Parts of more than
 * half of `partRowsMax` rows or `partBytesMax` bytes are full enough and never merge again
 * (merging them would rewrite much to add little). The others merge once there are
 * partsPerMerge of them, or once they hold `partRowsMax` rows or `partBytesMax` bytes together:
 * then as many as fit in both, at least two. So parts of any size below the half merge
 * (level-0 parts grow past compactRows when compaction lags, and eight of those would pass the
 * bound), and no merge holds more than `partRowsMax` rows or `partBytesMax` bytes.
 */
function nextMerge<Part extends { rows: number; arrowBytes: number }>(parts: Part[], partRowsMax: number, partBytesMax: number): Part[] | null {
  const open = parts.filter((part) => part.rows <= partRowsMax / 2 && part.arrowBytes <= partBytesMax / 2);
  const openRows = open.reduce((sum, part) => sum + part.rows, 0);
  const openBytes = open.reduce((sum, part) => sum + part.arrowBytes, 0);
  if (open.length < partsPerMerge && openRows < partRowsMax && openBytes < partBytesMax) return null;
  const group: Part[] = [];
  let rows = 0;
  let bytes = 0;
  for (const part of open) {
    if (group.length === partsPerMerge || rows + part.rows > partRowsMax || bytes + part.arrowBytes > partBytesMax) break;
    group.push(part);
    rows += part.rows;
    bytes += part.arrowBytes;
  }
  return group.length >= 2 ? group : null;
}

/**
 * One new level-0 part per UTC day of the segments' rows (so the cost follows new data, not
 * the size of the day); then parts of one level merge into one part of the next (nextMerge).
 * Each row is rewritten about log8(rows) times, and no merge holds more than `partRowsMax` rows
 * or `partBytesMax` bytes in memory. Rows that would take more than `partBytesMax` in one part
 * (MergeInput.bytesPerRow) are written as several parts of equal rows, each within it, at
 * splitPartLevel.
 */
export function compactPartition({ dataDir, segments, parts: currentParts, partRowsMax, partBytesMax }: CompactionJob): CompactionOutcome {
  let parts: WorkingPart[] = currentParts.map(({ day, level, rows, arrowBytes, file }) => ({ day, level, rows, arrowBytes, file }));
  const replaced: string[] = [];
  const make = (day: string, level: number, input: MergeInput, rows: ArrayLike<number>) => {
    const order = input.firstArrivalsSorted(rows);
    const bytes = order.length * input.bytesPerRow;
    const count = bytes <= partBytesMax ? 1 : Math.ceil(bytes / (partBytesMax * splitPartFill));
    const rowsPerPart = Math.ceil(order.length / count);
    const split = count > 1;
    // Runs of the sorted rows: each part is sorted by (person, timestamp) in itself.
    for (let start = 0; start < order.length; start += rowsPerPart) {
      const table = input.gather(order.subarray(start, start + rowsPerPart));
      const made: CompactedPart = {
        day, level: split ? splitPartLevel : level, rows: table.numRows, arrowBytes: tableBytes(table),
        parquet: encodeParquetFile(table, parquetRowGroupRows),
      };
      parts.push({ day, level: made.level, rows: made.rows, arrowBytes: made.arrowBytes, made });
    }
  };
  const incoming = new MergeInput(segments.map((segment) => readSegmentTable(join(dataDir, segment.file), segment)));
  for (const [day, rows] of rowsByDay(incoming.timestamps)) {
    make(day, 0, incoming, rows);
    for (let level = 0; parts.some((part) => part.day === day && part.level >= level && part.level < splitPartLevel); ) {
      const group = nextMerge(parts.filter((part) => part.day === day && part.level === level), partRowsMax, partBytesMax);
      if (!group) {
        level++;
        continue;
      }
      const merged = new MergeInput(group.map((part) => ("file" in part ? readParquetTable(join(dataDir, part.file)) : parquetTable(part.made.parquet))));
      parts = parts.filter((part) => !group.includes(part));
      for (const part of group) if ("file" in part) replaced.push(part.file);
      make(day, level + 1, merged, allRows(merged.rows));
    }
  }
  return { written: parts.flatMap((part) => ("made" in part ? [part.made] : [])), replaced };
}
