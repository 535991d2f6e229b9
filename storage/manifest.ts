// The manifest names every live data file of a region and how far the write-ahead log is
// sealed into them. It is replaced atomically, so after a crash it describes either the
// state before a seal or compaction, or the state after; files it does not name are removed.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-file.ts";
import type { WalPosition } from "./wal.ts";

export interface SegmentEntry {
  /** The seal file, relative to the region's data directory; several segments share one. */
  file: string;
  /** The segment's Arrow IPC stream is `bytes` bytes at `offset` in the file. */
  offset: number;
  bytes: number;
  projectId: string;
  dataId: number;
  environment: string;
  rows: number;
  sealedAt: number;
}

export interface PartEntry {
  file: string;
  projectId: string;
  dataId: number;
  environment: string;
  /** UTC day of the events' timestamps, YYYY-MM-DD. */
  day: string;
  /** 0 for a part made from segments; n + 1 for a merge of parts of level n. */
  level: number;
  rows: number;
  bytes: number;
}

export interface Manifest {
  version: typeof manifestVersion;
  walSealedThrough: WalPosition;
  nextFileNumber: number;
  segments: SegmentEntry[];
  parts: PartEntry[];
}

export const manifestFileName = "manifest.json";
/**
 * 2: segments share one seal file per seal and record their byte range.
 * 3: files carry `person_index` and `$group_0..4`, and parts are sorted by person index.
 */
export const manifestVersion = 3;

export const emptyManifest = (): Manifest => ({
  version: manifestVersion,
  walSealedThrough: { file: 0, offset: 0 },
  nextFileNumber: 1,
  segments: [],
  parts: [],
});

export function readManifest(dataDir: string): Manifest {
  const path = join(dataDir, manifestFileName);
  if (!existsSync(path)) return emptyManifest();
  const manifest = JSON.parse(readFileSync(path, "utf8")) as Manifest;
  if (manifest.version !== manifestVersion) throw new Error(`${path}: manifest version ${manifest.version} is not ${manifestVersion}`);
  return manifest;
}

export function writeManifest(dataDir: string, manifest: Manifest): void {
  writeFileAtomic(join(dataDir, manifestFileName), JSON.stringify(manifest));
}
