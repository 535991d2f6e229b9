// A number column that holds one value in every row, known without decoding its rows: in every
// row group no nulls (by the statistics) and either the statistics' min and max are that one
// value (storage's writer records them) or, for writers without them, only dictionary-encoded
// data pages (by the page encoding statistics) and a dictionary of that one value. That is
// `sample_rate` when nothing was sampled, which is how a query learns that no row needs
// weighting without decoding 8 bytes per row (measured: about a tenth of a cold revenue query
// over 10M events).
import { closeSync, openSync } from "node:fs";
import { readAt, type Footer } from "./footer.ts";
import { chunkPages } from "./pages.ts";

/** Larger column chunks are not looked at: a column with one value per row group takes a few hundred bytes. */
const constantChunkBytesMax = 64 * 1024;
const doubleBytes = 8;

const doubleOf = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, doubleBytes).getFloat64(0, true);

/**
 * The constant by every row group's statistics (null when they show another value or nulls),
 * or undefined when some row group has no min and max to tell.
 */
function constantByStatistics(footer: Footer, index: number): number | null | undefined {
  let constant: number | null = null;
  for (const { chunks } of footer.rowGroups) {
    const { nullCount, min, max } = chunks[index]!;
    if (min?.byteLength !== doubleBytes || max?.byteLength !== doubleBytes || nullCount === null) return undefined;
    const [low, high] = [doubleOf(min), doubleOf(max)];
    // Statistics may say 0 for rows holding -0 and 0 alike (parquet.thrift): they cannot tell.
    if (low === 0 || high === 0) return undefined;
    if (nullCount !== 0 || low !== high || (constant !== null && low !== constant)) return null;
    constant = low;
  }
  return constant;
}

/** The value of every row of a number column, or null when the column may hold others (or nulls). */
export function constantNumber(path: string, footer: Footer, name: string): number | null {
  const index = footer.columns.findIndex((column) => column.name === name);
  const column = footer.columns[index];
  if (!column || column.type !== "number" || footer.rowGroups.length === 0) return null;
  const fromStatistics = constantByStatistics(footer, index);
  if (fromStatistics !== undefined) return fromStatistics;
  if (footer.rowGroups.some(({ chunks }) => !chunks[index]!.dictionaryOnly || chunks[index]!.nullCount !== 0 || chunks[index]!.compressedBytes > constantChunkBytesMax)) return null;
  const fd = openSync(path, "r");
  try {
    let constant: number | null = null;
    for (const { chunks } of footer.rowGroups) {
      const chunk = chunks[index]!;
      const first = chunkPages(readAt(fd, chunk.start, chunk.compressedBytes), chunk.codec, column.optional).next().value;
      if (!first || first.kind !== "dictionary" || first.values !== 1 || first.data.byteLength < doubleBytes) return null;
      const value = new DataView(first.data.buffer, first.data.byteOffset, doubleBytes).getFloat64(0, true);
      if (constant !== null && !Object.is(value, constant)) return null;
      constant = value;
    }
    return constant;
  } finally {
    closeSync(fd);
  }
}
