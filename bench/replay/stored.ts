// What a region's data directory holds of its recordings once compacted: chunks, sessions and
// blocks as the index counts them, the block files' bytes (as written, and as allocated on disk),
// the index's bytes in region.sqlite, and what is left in the replay log.
import { Database } from "bun:sqlite";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export interface StoredReplays {
  sessions: number;
  chunks: number;
  blocks: number;
  /** Sum of the block files' sizes. */
  blockBytes: number;
  /** What the file system allocated for them (whole file-system blocks). */
  blockAllocatedBytes: number;
  /** Pages of the index tables and their indexes in region.sqlite (replay_sessions, replay_blocks, replay_chunks). */
  indexBytes: number;
  /** Of which `replay_chunks` (a row per chunk stored, for deduplication). */
  chunkIndexBytes: number;
  /** Bytes in the replay log's files: 0 once every chunk is in a block and the log truncated. */
  logBytes: number;
}

/** Size and allocated bytes of every file under `dir`. */
function filesUnder(dir: string): { bytes: number; allocated: number } {
  const total = { bytes: 0, allocated: 0 };
  if (!existsSync(dir)) return total;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const stat = statSync(join(entry.parentPath, entry.name));
    total.bytes += stat.size;
    total.allocated += stat.blocks * 512;
  }
  return total;
}

/** Reads `regionDir` (a second connection to region.sqlite; the service may hold its own). */
export function storedReplays(regionDir: string): StoredReplays {
  const db = new Database(join(regionDir, "region.sqlite"), { readonly: true });
  try {
    const count = (table: string) => (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const pages = (tables: string[]) =>
      (db.query(`SELECT coalesce(sum(pgsize), 0) AS bytes FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name IN (${tables.map(() => "?").join(", ")}))`).get(...tables) as { bytes: number }).bytes;
    const blocks = filesUnder(join(regionDir, "replays", "blocks"));
    return {
      sessions: count("replay_sessions"),
      chunks: count("replay_chunks"),
      blocks: count("replay_blocks"),
      blockBytes: blocks.bytes,
      blockAllocatedBytes: blocks.allocated,
      indexBytes: pages(["replay_sessions", "replay_blocks", "replay_chunks"]),
      chunkIndexBytes: pages(["replay_chunks"]),
      logBytes: filesUnder(join(regionDir, "replays", "wal")).bytes,
    };
  } finally {
    db.close();
  }
}
