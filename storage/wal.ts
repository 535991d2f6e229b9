// Write-ahead log: append-only files of checksummed records. An append resolves only after
// the fsync that covers it; appends that arrive while a flush is running wait for the next
// one, so one fsync covers every request waiting on it (group commit).
//
// Companion files (the region's SQLite journal: the person state that events' person indexes
// refer to) are synced in the same group commit when they changed, so whatever a record
// depends on is as durable as the record, without a blocking fsync per SQLite transaction.
//
// Record layout: u32 payload length | u32 CRC-32 of the payload | payload (little endian).
// A crash can leave a torn record only at the end of the newest file; opening the log
// verifies every record and cuts such a tail off.
import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { open, unlink, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { makeDirectories, writevBuffersMax } from "./atomic-file.ts";

export const walFileBytesMax = 64 * 1024 * 1024;
export const walRecordBytesMax = 32 * 1024 * 1024;
const headerBytes = 8;
const fileNamePattern = /^wal-(\d{16})\.log$/;

/** Position just past a record: the file's sequence number and the byte offset in it. */
export interface WalPosition {
  file: number;
  offset: number;
}

/** A sealed file being removed is renamed with this suffix first; open removes any such file. */
export const droppedSuffix = ".dropped";

export class WalUnavailableError extends Error {}
/** A record past walRecordBytesMax: never written (ingest bodies are far smaller). */
export class WalRecordTooLargeError extends Error {}
export class WalCorruptError extends Error {}

/** A file synced with the log's group commits: `changes` moves whenever it has new writes. */
export interface WalCompanion {
  path: string;
  changes(): number;
}

export const comparePositions = (a: WalPosition, b: WalPosition) => a.file - b.file || a.offset - b.offset;

/**
 * Syncs a directory's entries off the event loop: under full ingest a rotation comes about every
 * second, and a directory sync then waits behind the disk's other writes.
 */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const fileName = (sequence: number) => `wal-${String(sequence).padStart(16, "0")}.log`;

interface PendingAppend {
  /** The record header followed by the payload's parts, written as they are (no copy). */
  chunks: Uint8Array[];
  bytes: number;
  resolve: (position: WalPosition) => void;
  reject: (error: Error) => void;
}

/** A record of the parts' bytes concatenated: its header (length, CRC-32) and the parts. */
function frame(parts: readonly Uint8Array[], payloadBytes: number): Uint8Array[] {
  const header = new Uint8Array(headerBytes);
  const view = new DataView(header.buffer);
  let checksum = 0;
  for (const part of parts) checksum = Bun.hash.crc32(part, checksum);
  view.setUint32(0, payloadBytes, true);
  view.setUint32(4, checksum, true);
  return [header, ...parts];
}

/** Every valid record of one file, and where the valid part ends. */
function scanFile(path: string): { records: { payload: Uint8Array; end: number }[]; validBytes: number; totalBytes: number } {
  const bytes = new Uint8Array(readFileSync(path));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: { payload: Uint8Array; end: number }[] = [];
  let offset = 0;
  while (offset + headerBytes <= bytes.byteLength) {
    const length = view.getUint32(offset, true);
    const checksum = view.getUint32(offset + 4, true);
    const end = offset + headerBytes + length;
    // No record is empty (append refuses one): a zero length is a tail the file system extended
    // but never wrote, zeros whose CRC-32 over no bytes would match.
    if (length === 0 || length > walRecordBytesMax || end > bytes.byteLength) break;
    const payload = bytes.subarray(offset + headerBytes, end);
    if (Bun.hash.crc32(payload) !== checksum) break;
    records.push({ payload, end });
    offset = end;
  }
  return { records, validBytes: offset, totalBytes: bytes.byteLength };
}

function walFileSequences(dir: string): number[] {
  return readdirSync(dir)
    .map((name) => name.match(fileNamePattern))
    .filter((match): match is RegExpMatchArray => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
}

/**
 * The valid records of a log directory, without opening it for writing (so it is safe next to
 * a running writer: acknowledged records are complete on disk, a torn tail is simply not read).
 */
export function* readWalRecords(dir: string, after: WalPosition = { file: 0, offset: 0 }): Generator<{ payload: Uint8Array; position: WalPosition }> {
  if (!existsSync(dir)) return;
  for (const sequence of walFileSequences(dir)) {
    if (sequence < after.file) continue;
    let records: ReturnType<typeof scanFile>["records"];
    try {
      records = scanFile(join(dir, fileName(sequence))).records;
    } catch (error) {
      // A file dropped since the listing held only sealed records (truncateUpTo drops no other).
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    for (const record of records) {
      const position = { file: sequence, offset: record.end };
      if (comparePositions(position, after) > 0) yield { payload: record.payload, position };
    }
  }
}

export class WriteAheadLog {
  private handle: FileHandle | null = null;
  private fileSequence = 0;
  private fileBytes = 0;
  private queue: PendingAppend[] = [];
  /** Appends queued so far, and how many of them have resolved or rejected (see settled). */
  private appendsQueued = 0;
  private appendsSettled = 0;
  private settledWaiters: { through: number; resolve: () => void }[] = [];
  private flushing: Promise<void> | null = null;
  /** Writes and rotations of the active file run one at a time, in order. */
  private fileWork: Promise<unknown> = Promise.resolve();
  private broken: Error | null = null;
  private closed = false;
  private readonly companionHandles = new Map<string, FileHandle>();
  /** Each companion's `changes()` at its last sync. */
  private readonly companionsSyncedAt = new Map<string, number>();

  private constructor(
    readonly dir: string,
    private readonly companions: readonly WalCompanion[],
  ) {}

  /**
   * Opens the log in `dir`, verifying every record. A torn tail of the newest file is cut off;
   * a bad record anywhere else is corruption and stops the open. `companions` are files synced
   * with every group commit (a companion that does not exist yet is skipped until it does).
   */
  static async open(dir: string, companions: readonly WalCompanion[] = []): Promise<WriteAheadLog> {
    makeDirectories(dir);
    for (const name of readdirSync(dir)) if (name.endsWith(droppedSuffix)) rmSync(join(dir, name));
    const wal = new WriteAheadLog(dir, companions);
    const sequences = wal.fileSequences();
    for (const [index, sequence] of sequences.entries()) {
      const path = join(dir, fileName(sequence));
      const scan = scanFile(path);
      if (scan.validBytes === scan.totalBytes) continue;
      if (index !== sequences.length - 1) {
        throw new WalCorruptError(`${path}: invalid record at byte ${scan.validBytes} of ${scan.totalBytes}`);
      }
      const fd = openSync(path, "r+");
      ftruncateSync(fd, scan.validBytes);
      fsyncSync(fd);
      closeSync(fd);
    }
    wal.fileSequence = sequences.at(-1) ?? 1;
    await wal.openActive();
    return wal;
  }

  private fileSequences(): number[] {
    return walFileSequences(this.dir);
  }

  private async openActive(): Promise<void> {
    const path = join(this.dir, fileName(this.fileSequence));
    const created = !existsSync(path);
    this.handle = await open(path, "a");
    this.fileBytes = created ? 0 : statSync(path).size;
    if (created) await syncDirectory(this.dir);
  }

  /**
   * Appends one record whose payload is `payload` (or its parts, concatenated). Resolves with
   * the record's end position once it is on disk; rejects with WalUnavailableError if it is not.
   */
  append(payload: Uint8Array | readonly Uint8Array[]): Promise<WalPosition> {
    if (this.closed) return Promise.reject(new WalUnavailableError("write-ahead log is closed"));
    if (this.broken) return Promise.reject(new WalUnavailableError(`write-ahead log is unavailable: ${this.broken.message}`));
    const parts = payload instanceof Uint8Array ? [payload] : payload;
    const payloadBytes = parts.reduce((sum, part) => sum + part.byteLength, 0);
    if (payloadBytes === 0) return Promise.reject(new Error("a write-ahead log record cannot be empty"));
    if (payloadBytes > walRecordBytesMax) {
      return Promise.reject(new WalRecordTooLargeError(`record of ${payloadBytes} bytes exceeds ${walRecordBytesMax}`));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ chunks: frame(parts, payloadBytes), bytes: headerBytes + payloadBytes, resolve, reject });
      this.appendsQueued++;
      if (!this.flushing) this.flushing = this.flushLoop();
    });
  }

  private onActiveFile<T>(work: () => Promise<T>): Promise<T> {
    const next = this.fileWork.then(work, work);
    this.fileWork = next.catch(() => {});
    return next;
  }

  private async flushLoop(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        await this.onActiveFile(() => this.writeBatch(batch));
      } catch (error) {
        const failure = new WalUnavailableError(`write-ahead log write failed: ${(error as Error).message}`);
        for (const pending of batch) pending.reject(failure);
      }
      // After the batch's own answers, so whoever waits on settled() sees what they did.
      this.appendsSettled += batch.length;
      const settled = this.settledWaiters.filter((waiter) => waiter.through <= this.appendsSettled);
      this.settledWaiters = this.settledWaiters.filter((waiter) => waiter.through > this.appendsSettled);
      for (const waiter of settled) waiter.resolve();
    }
    this.flushing = null;
  }

  /**
   * Resolves once every append made before this call has resolved or rejected (and the code
   * awaiting each has run its next step), however long later appends keep the log busy.
   */
  settled(): Promise<void> {
    if (this.appendsSettled >= this.appendsQueued) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push({ through: this.appendsQueued, resolve }));
  }

  private async writeBatch(batch: PendingAppend[]): Promise<void> {
    // Appends queued while an earlier write failed and could not be cut off: the file may end in
    // its torn bytes, which the next open cuts together with whatever follows them.
    if (this.broken) throw this.broken;
    const batchBytes = batch.reduce((sum, pending) => sum + pending.bytes, 0);
    if (this.fileBytes > 0 && this.fileBytes + batchBytes > walFileBytesMax) await this.rotate();
    const handle = this.handle!;
    const start = this.fileBytes;
    try {
      // A full disk can show up as a short write rather than an error. More buffers than one
      // writev takes are joined first.
      const chunks = batch.flatMap((pending) => pending.chunks);
      const { bytesWritten } = await handle.writev(chunks.length > writevBuffersMax ? [Buffer.concat(chunks, batchBytes)] : chunks);
      if (bytesWritten !== batchBytes) throw new Error(`short write: ${bytesWritten} of ${batchBytes} bytes (disk full?)`);
      await Promise.all([handle.datasync(), this.syncCompanions()]);
    } catch (error) {
      await this.rollBack(handle, start, error as Error);
      throw error;
    }
    let offset = start;
    for (const pending of batch) {
      offset += pending.bytes;
      pending.resolve({ file: this.fileSequence, offset });
    }
    this.fileBytes = offset;
  }

  private async syncCompanions(): Promise<void> {
    await Promise.all(this.companions.map(async ({ path, changes }) => {
      const version = changes();
      if (this.companionsSyncedAt.get(path) === version) return;
      let companion = this.companionHandles.get(path);
      if (!companion) {
        if (!existsSync(path)) return;
        companion = await open(path, "r");
        this.companionHandles.set(path, companion);
      }
      await companion.datasync();
      this.companionsSyncedAt.set(path, version);
    }));
  }

  /** Cuts a failed write off so the file ends on a whole record; if even that fails, stop taking writes. */
  private async rollBack(handle: FileHandle, validBytes: number, cause: Error): Promise<void> {
    try {
      await handle.truncate(validBytes);
      await handle.datasync();
    } catch {
      this.broken = cause;
    }
  }

  /**
   * Moves writing to a new file. The new file is created (and its name synced, so a crash
   * cannot lose a file that acknowledged records are in) before the current one is let go: if
   * it cannot be (a full disk, no file handles left), the current file stays active, the
   * write that needed the rotation fails (503), and the next one that needs it tries again.
   */
  private async rotate(): Promise<void> {
    const next = this.fileSequence + 1;
    const path = join(this.dir, fileName(next));
    const handle = await open(path, "a");
    try {
      await syncDirectory(this.dir);
    } catch (error) {
      await handle.close().catch(() => {});
      // Writing goes on in the current file, which must stay the newest: a crash during one of
      // its appends leaves a torn tail that the next open cuts only in the newest file. If the
      // new file cannot be removed either, writing stops (a restart opens the log as it is).
      await unlink(path).catch((cause: Error) => (this.broken = cause));
      throw error;
    }
    const previous = this.handle;
    this.handle = handle;
    this.fileSequence = next;
    this.fileBytes = 0;
    // Its records are synced already: failing to close it loses nothing and must not stop the log.
    await previous?.close().catch(() => {});
  }

  /** Every record after `after` (exclusive), oldest first, with its end position. */
  records(after: WalPosition = { file: 0, offset: 0 }): Generator<{ payload: Uint8Array; position: WalPosition }> {
    return readWalRecords(this.dir, after);
  }

  /** Why appends are refused, or null while the log takes writes. */
  unavailableReason(): string | null {
    if (this.closed) return "closed";
    return this.broken ? `write failures could not be rolled back: ${this.broken.message}` : null;
  }

  /** Where the next record will end after; everything before it is durable. */
  head(): WalPosition {
    return { file: this.fileSequence, offset: this.fileBytes };
  }

  /**
   * Moves writing to a new file now unless the active one is empty (an erasure: the files
   * before it can then be dropped whole once their records are stored elsewhere). Resolves with
   * the sequence of the file written from here on; truncateUpTo({ file: it, offset: 0 }) drops
   * every file before it.
   */
  async startNewFile(): Promise<number> {
    await this.onActiveFile(async () => {
      if (this.broken) throw new WalUnavailableError(`write-ahead log is unavailable: ${this.broken.message}`);
      if (this.fileBytes > 0) await this.rotate();
    });
    return this.fileSequence;
  }

  /**
   * Drops whole files that end at or before `upTo` (their records are sealed elsewhere). The
   * active file is rotated first when `upTo` is its end, so the log never grows without bound.
   */
  async truncateUpTo(upTo: WalPosition): Promise<void> {
    await this.onActiveFile(async () => {
      // A broken log's active file may end in a write it could not cut off: it must stay the
      // newest file, whose torn tail the next open cuts (in an older file it is corruption).
      if (this.broken) return;
      if (upTo.file === this.fileSequence && upTo.offset === this.fileBytes && this.fileBytes > 0) await this.rotate();
    });
    for (const sequence of this.fileSequences()) {
      if (sequence >= this.fileSequence || sequence > upTo.file) break;
      const path = join(this.dir, fileName(sequence));
      const size = statSync(path).size;
      if (sequence < upTo.file || size <= upTo.offset) {
        // Rename first so a crash mid-delete never leaves a half-removed file that looks live.
        // The unlink itself runs off the event loop (freeing a 64 MB file took about 25 ms here,
        // on a disk mounted with `discard`): ingest keeps answering meanwhile.
        renameSync(path, `${path}${droppedSuffix}`);
        await unlink(`${path}${droppedSuffix}`);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.flushing) await this.flushing;
    await this.onActiveFile(async () => {
      await this.handle?.close();
      this.handle = null;
      for (const companion of this.companionHandles.values()) await companion.close();
      this.companionHandles.clear();
    });
  }
}
