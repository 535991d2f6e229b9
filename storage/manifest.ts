// The manifest names every live data file of a region and how far the write-ahead log is
// sealed into them. Each seal or compaction is one change appended to `manifest.log`
// (checksummed, fsynced), so a step costs the size of what it changes, not of everything the
// region holds: rewriting the whole manifest at every step made compaction slower the more
// parts a region had. Once the log is long, the whole state is written to `manifest.json` (a
// checkpoint, replaced atomically, recording the last change it includes) and the log starts
// again. After a crash the manifest is the checkpoint plus every whole change after it: a change
// torn by the crash is cut off, and the files it would have named are removed as leftovers. A
// damaged change followed by whole ones is no tear, and the manifest is not read (replay).
//
// Log record layout: u32 payload length | u32 CRC-32 of the payload | payload (JSON), little endian.
import { closeSync, existsSync, fdatasyncSync, ftruncateSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fsyncDirectory, removeTemporaryFiles, temporarySuffix, writeAll, writeFileAtomic } from "./atomic-file.ts";
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
  /** Bytes of the file, and of its rows once read (Arrow buffers: event-columns.ts tableBytes; see withArrowBytes for older entries). */
  bytes: number;
  arrowBytes: number;
}

export interface Manifest {
  walSealedThrough: WalPosition;
  nextFileNumber: number;
  segments: SegmentEntry[];
  parts: PartEntry[];
}

/** What one seal or compaction changes. */
export interface ManifestChange {
  walSealedThrough?: WalPosition;
  addSegments?: SegmentEntry[];
  /** Segments by seal file and offset. */
  dropSegments?: { file: string; offset: number }[];
  addParts?: PartEntry[];
  /** Parts by file. */
  dropParts?: string[];
}

interface Checkpoint extends Manifest {
  version: number;
  /** The sequence number of the last change the checkpoint includes (0: none). */
  lastChange?: number;
}

/** A change as the log holds it: numbered, with the file numbers taken by the time it was made. */
interface LoggedChange extends ManifestChange {
  sequence: number;
  nextFileNumber: number;
}

export const manifestFileName = "manifest.json";
export const manifestLogFileName = "manifest.log";
/**
 * 2: segments share one seal file per seal and record their byte range.
 * 3: files carry `person_index` and `$group_0..4`, and parts are sorted by person index.
 * 4: changes go to manifest.log between checkpoints (a version 3 manifest.json reads as a checkpoint).
 */
export const manifestVersion = 4;
const readableVersions = new Set([3, manifestVersion]);

/** A checkpoint is written once the log holds this many bytes of changes (it is read at every start). */
export const manifestLogBytesMax = 4 * 1024 * 1024;
const recordHeaderBytes = 8;

export const emptyManifest = (): Manifest => ({ walSealedThrough: { file: 0, offset: 0 }, nextFileNumber: 1, segments: [], parts: [] });

const segmentKey = (segment: { file: string; offset: number }) => `${segment.file}@${segment.offset}`;

/**
 * Parts written before parts recorded their Arrow bytes read as 0: they were made bounded by
 * rows alone, and merge bounded by rows as before.
 */
const withArrowBytes = (parts: PartEntry[]): PartEntry[] => parts.map((part) => (part.arrowBytes === undefined ? { ...part, arrowBytes: 0 } : part));

/** The manifest after `change`. */
function applied(manifest: Manifest, change: LoggedChange): Manifest {
  const droppedSegments = new Set((change.dropSegments ?? []).map(segmentKey));
  const droppedParts = new Set(change.dropParts ?? []);
  return {
    walSealedThrough: change.walSealedThrough ?? manifest.walSealedThrough,
    nextFileNumber: Math.max(manifest.nextFileNumber, change.nextFileNumber),
    segments: [...(droppedSegments.size > 0 ? manifest.segments.filter((s) => !droppedSegments.has(segmentKey(s))) : manifest.segments), ...(change.addSegments ?? [])],
    parts: [...(droppedParts.size > 0 ? manifest.parts.filter((p) => !droppedParts.has(p.file)) : manifest.parts), ...withArrowBytes(change.addParts ?? [])],
  };
}

function readCheckpoint(dataDir: string): { manifest: Manifest; lastChange: number } {
  const path = join(dataDir, manifestFileName);
  if (!existsSync(path)) return { manifest: emptyManifest(), lastChange: 0 };
  const { version, lastChange, walSealedThrough, nextFileNumber, segments, parts } = JSON.parse(readFileSync(path, "utf8")) as Checkpoint;
  if (!readableVersions.has(version)) throw new Error(`${path}: manifest version ${version} is not one of ${[...readableVersions].join(", ")}`);
  return { manifest: { walSealedThrough, nextFileNumber, segments, parts: withArrowBytes(parts) }, lastChange: lastChange ?? 0 };
}

const decoder = new TextDecoder();

/** The change whose record starts at `offset`, or null where no whole record with a matching checksum does. */
function changeAt(bytes: Uint8Array, view: DataView, offset: number): { change: LoggedChange; end: number } | null {
  if (offset + recordHeaderBytes > bytes.byteLength) return null;
  const length = view.getUint32(offset, true);
  const end = offset + recordHeaderBytes + length;
  // No change is empty: a zero length is a tail the file system extended but never wrote
  // (zeros, whose CRC-32 over no bytes would match).
  if (length === 0 || end > bytes.byteLength) return null;
  const payload = bytes.subarray(offset + recordHeaderBytes, end);
  if (Bun.hash.crc32(payload) !== view.getUint32(offset + 4, true)) return null;
  return { change: JSON.parse(decoder.decode(payload)) as LoggedChange, end };
}

/**
 * The log's whole records, where the whole part ends, and the newest change among whole
 * records past that end, if any. A crash tears at most the last change (each is synced before
 * the next is written), so a whole record past a bad one means the file is damaged, not torn.
 */
function readLog(dataDir: string): { changes: LoggedChange[]; validBytes: number; totalBytes: number; newestIntactAfter: number | null } {
  const path = join(dataDir, manifestLogFileName);
  if (!existsSync(path)) return { changes: [], validBytes: 0, totalBytes: 0, newestIntactAfter: null };
  const bytes = new Uint8Array(readFileSync(path));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const changes: LoggedChange[] = [];
  let offset = 0;
  for (let record = changeAt(bytes, view, offset); record; record = changeAt(bytes, view, offset)) {
    changes.push(record.change);
    offset = record.end;
  }
  let newestIntactAfter: number | null = null;
  for (let start = offset + 1; start + recordHeaderBytes < bytes.byteLength; start++) {
    let record: ReturnType<typeof changeAt> = null;
    try {
      record = changeAt(bytes, view, start);
    } catch {
      // A checksum matched by chance over bytes that are not a change.
    }
    // `?.` past `change` too: a matching checksum over `null` parses to no object.
    const sequence = record?.change?.sequence;
    if (!Number.isSafeInteger(sequence)) continue;
    newestIntactAfter = Math.max(newestIntactAfter ?? 0, sequence!);
    start = record!.end - 1;
  }
  return { changes, validBytes: offset, totalBytes: bytes.byteLength, newestIntactAfter };
}

/** The manifest log is damaged before changes that are intact: see replay. */
export class ManifestCorruptError extends Error {}

/**
 * The checkpoint with the logged changes after it applied, and the last change's sequence
 * number. Changes past a damaged record are not skipped over (the ones between might be lost,
 * and the rest would not apply), nor cut off with it: the files they name would then be
 * removed as leftovers, deleting stored events. The manifest is not read at all instead.
 */
function replay(dataDir: string): { manifest: Manifest; lastChange: number; validBytes: number; totalBytes: number } {
  let { manifest, lastChange } = readCheckpoint(dataDir);
  const log = readLog(dataDir);
  // Changes the checkpoint includes (a crash came between the checkpoint and emptying the log) are not needed.
  if (log.newestIntactAfter !== null && log.newestIntactAfter > lastChange) {
    throw new ManifestCorruptError(
      `${join(dataDir, manifestLogFileName)} is damaged at byte ${log.validBytes} of ${log.totalBytes}, before intact changes (up to change ${log.newestIntactAfter}). ` +
        "The store does not open on it: the files those changes name would be deleted. Restore the file from a backup, " +
        "or move it away to start from the last checkpoint (files named only since then are then removed)",
    );
  }
  for (const change of log.changes) {
    // Changes up to the checkpoint's are in it already (a crash came between the checkpoint and emptying the log).
    if (change.sequence <= lastChange) continue;
    manifest = applied(manifest, change);
    lastChange = change.sequence;
  }
  return { manifest, lastChange, validBytes: log.validBytes, totalBytes: log.totalBytes };
}

/** The manifest as a crash would leave it (read only: safe next to a running writer). */
export function readManifest(dataDir: string): Manifest {
  return replay(dataDir).manifest;
}

/** Every file under `dir`, relative to `root`. */
function listFiles(root: string, dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(root, path) : [relative(root, path)];
  });
}

/**
 * Deletes the data files `manifest` does not name (a step that crashed before its commit, or
 * one whose cleanup after the commit did not finish) and every temporary file.
 */
export function removeUnnamedFiles(dataDir: string, manifest: Readonly<Manifest>): void {
  const live = new Set([...manifest.segments.map((s) => s.file), ...manifest.parts.map((p) => p.file)]);
  for (const file of [...listFiles(dataDir, join(dataDir, "segments")), ...listFiles(dataDir, join(dataDir, "parquet"))]) {
    if (!live.has(file) || file.includes(temporarySuffix)) rmSync(join(dataDir, file));
  }
  removeTemporaryFiles(dataDir);
}

/**
 * A commit failed and so did cutting the log back: after a restart the change may turn out to
 * be committed. So whoever committed must keep every file the change names (a restart removes
 * the ones the manifest does not name) and the manifest takes no more commits.
 */
export class ManifestUncertainError extends Error {}

/** The region's manifest, kept in memory and changed one logged change at a time. */
export class ManifestLog {
  private logBytes: number;
  private broken: Error | null = null;

  private constructor(
    private readonly dataDir: string,
    private current: Manifest,
    private lastChange: number,
    private fd: number,
    validBytes: number,
    private readonly logBytesMax: number,
  ) {
    this.logBytes = validBytes;
  }

  /** Reads the checkpoint and the log, cutting off a change a crash tore. */
  static open(dataDir: string, logBytesMax = manifestLogBytesMax): ManifestLog {
    const { manifest, lastChange, validBytes, totalBytes } = replay(dataDir);
    const logPath = join(dataDir, manifestLogFileName);
    const created = !existsSync(logPath);
    const fd = openSync(logPath, "a+");
    // The log's directory entry must be durable before any change it holds counts as committed.
    if (created) fsyncDirectory(dataDir);
    if (validBytes < totalBytes) {
      ftruncateSync(fd, validBytes);
      fdatasyncSync(fd);
    }
    return new ManifestLog(dataDir, manifest, lastChange, fd, validBytes, logBytesMax);
  }

  /** The manifest now. Callers must not change it: every change goes through commit(). */
  get manifest(): Readonly<Manifest> {
    return this.current;
  }

  /** A file number no live or future file of this manifest uses (numbers taken but never committed are skipped). */
  takeFileNumber(): number {
    return this.current.nextFileNumber++;
  }

  /**
   * Makes `change` durable, with every file number taken so far, then applies it. On failure
   * nothing changes (the log is cut back to its last whole change) and the error is thrown;
   * if even cutting it back fails, the change may be on disk after all: ManifestUncertainError,
   * and no commit is taken from then on.
   */
  commit(change: ManifestChange): void {
    if (this.broken) throw new Error(`manifest log is unavailable: ${this.broken.message}`);
    const logged: LoggedChange = { sequence: this.lastChange + 1, nextFileNumber: this.current.nextFileNumber, ...change };
    const payload = new TextEncoder().encode(JSON.stringify(logged));
    const record = new Uint8Array(recordHeaderBytes + payload.byteLength);
    const view = new DataView(record.buffer);
    view.setUint32(0, payload.byteLength, true);
    view.setUint32(4, Bun.hash.crc32(payload), true);
    record.set(payload, recordHeaderBytes);
    try {
      writeAll(this.fd, [record]);
      fdatasyncSync(this.fd);
    } catch (error) {
      try {
        ftruncateSync(this.fd, this.logBytes);
        fdatasyncSync(this.fd);
      } catch {
        this.broken = error as Error;
        throw new ManifestUncertainError(`manifest change may or may not be on disk: ${(error as Error).message}`);
      }
      throw error;
    }
    this.logBytes += record.byteLength;
    this.lastChange = logged.sequence;
    this.current = applied(this.current, logged);
    if (this.logBytes > this.logBytesMax) this.checkpoint();
  }

  /** Writes the whole manifest as the checkpoint and empties the log (a failure leaves the log to grow and is retried). */
  private checkpoint(): void {
    try {
      const checkpoint: Checkpoint = { version: manifestVersion, lastChange: this.lastChange, ...this.current };
      writeFileAtomic(join(this.dataDir, manifestFileName), JSON.stringify(checkpoint));
      ftruncateSync(this.fd, 0);
      // Emptied now, synced or not: a later commit's rollback must cut back to this length,
      // not to the old one, which would extend the file with zeros around the failed record.
      this.logBytes = 0;
      fdatasyncSync(this.fd);
    } catch (error) {
      console.error(`manifest checkpoint in ${this.dataDir} failed (the log keeps every change):`, error);
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}
