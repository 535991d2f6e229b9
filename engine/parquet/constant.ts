// A number column that holds one value in every row, known without decoding its rows: no nulls
// (by the statistics), only dictionary-encoded data pages (by the page encoding statistics),
// and in every row group a dictionary of that one value. Storage writes `sample_rate` this way
// when nothing was sampled, which is how a query learns that no row needs weighting without
// decoding 8 bytes per row (measured: about a tenth of a cold revenue query over 10M events).
import { closeSync, openSync } from "node:fs";
import { readAt, type Footer } from "./footer.ts";
import { chunkPages } from "./pages.ts";

/** Larger column chunks are not looked at: a column with one value per row group takes a few hundred bytes. */
const constantChunkBytesMax = 64 * 1024;
const doubleBytes = 8;

/** The value of every row of a number column, or null when the column may hold others (or nulls). */
export function constantNumber(path: string, footer: Footer, name: string): number | null {
  const index = footer.columns.findIndex((column) => column.name === name);
  const column = footer.columns[index];
  if (!column || column.type !== "number" || footer.rowGroups.length === 0) return null;
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
