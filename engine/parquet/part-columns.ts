// The requested columns of a part, decoded by this directory's reader from the column chunks
// its footer locates. Imports neither parquet-wasm nor Arrow: decode workers
// (engine/parallel/decode-worker.ts) load this and start fast.
import { closeSync, openSync } from "node:fs";
import type { Decoded } from "../columns.ts";
import { heapArrays, type ArrayAllocator } from "../parallel/arrays.ts";
import { decodeColumn, type ChunkBytes } from "./column.ts";
import { readShared, type Footer } from "./footer.ts";

/**
 * The named columns of a part with a supported footer, in arrays from `arrays`; throws
 * ParquetUnsupportedError (returning none of them) at anything it does not decode.
 */
export function readPartColumns(path: string, footer: Footer, names: string[], arrays: ArrayAllocator = heapArrays): Map<string, Decoded> {
  const columns = names.map((name) => {
    const index = footer.columns.findIndex((column) => column.name === name);
    if (index < 0) throw new Error(`column "${name}" is not in ${path}`);
    return { column: footer.columns[index]!, index };
  });
  const fd = openSync(path, "r");
  try {
    const decoded = new Map<string, Decoded>();
    for (const { column, index } of columns) {
      const chunks: ChunkBytes[] = footer.rowGroups.map((group) => {
        const chunk = group.chunks[index]!;
        const allNull = column.optional && chunk.nullCount === chunk.values && chunk.values === group.rows;
        return { rows: group.rows, codec: chunk.codec, read: allNull ? null : () => readShared(fd, chunk.start, chunk.compressedBytes) };
      });
      decoded.set(column.name, decodeColumn(column, chunks, arrays));
    }
    return decoded;
  } finally {
    closeSync(fd);
  }
}
