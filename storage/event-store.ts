// The region's event storage after the write-ahead log:
//   add()     events already durable in the WAL go into per-(data id, environment) buffers;
//   seal()    buffers become Arrow IPC segments in one seal file, the manifest records them
//             and how far the WAL is sealed, and the WAL is truncated up to there;
//   compact() a partition's segments are merged into one zstd Parquet file per UTC day,
//             deduplicated by uuid (first arrival wins) and sorted by (person, timestamp).
// Seals run one at a time, and so do compactions, but a compaction's work (reading, sorting,
// encoding: partition-compaction.ts) runs on its compactor's thread while seals go on; only
// naming and writing its parts and committing them happen here. Every step writes new files
// first and switches the manifest last, so a crash at any point loses nothing acknowledged and
// duplicates nothing.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tableToIPC, type Table } from "apache-arrow";
import { makeDirectories, removeTemporaryFiles, writeFileAtomic } from "./atomic-file.ts";
import { parquetRowGroupRows, readSegmentTable, writeSealFile } from "./data-files.ts";
import { compactInPlace, type Compactor } from "./compaction-thread.ts";
import { EventBuffer } from "./event-buffer.ts";
import { propertyCellsMax, tableToEvents } from "./event-columns.ts";
import { readBatchRecord, type BatchRecordView, type StoredEvent } from "./event-record.ts";
import { ManifestLog, ManifestUncertainError, removeUnnamedFiles, type Manifest, type PartEntry, type SegmentEntry } from "./manifest.ts";
import { partitionTables } from "./partition-reads.ts";
import { comparePositions, readWalRecords, type WalPosition } from "./wal.ts";
import { EventMatcher, rewriteParts, type EventSubjects } from "./event-erasure.ts";

export interface StorageTuning {
  /** Seal when this many events are buffered in the region ... */
  sealRows: number;
  /** ... or when their requests' JSON passes this many bytes (large events fill memory long before sealRows) ... */
  sealBytes: number;
  /** ... or when their property columns pass this many cells (EventBuffer.propertyCells, summed) ... */
  sealCells: number;
  /** Seal when the oldest buffered event has waited this long. */
  sealAgeMs: number;
  /** Compact a partition once its segments hold this many events ... */
  compactRows: number;
  /** ... or once its oldest segment is this old ... */
  compactAgeMs: number;
  /**
   * ... or, biggest first, whatever its rows and age while more than this many rows wait in
   * segments in all: below the bound at which ingest waits for compaction (segmentRowsMax),
   * or many partitions each short of compactRows would hold ingest until they reach their age.
   */
  compactBacklogRows: number;
  /** A merge of parts that would give more rows than this does not happen. */
  partRowsMax: number;
  /**
   * A compaction takes segments, and a merge takes parts, that take at most this many bytes in
   * memory together (at least one segment), and no part it writes takes more (as Arrow buffers:
   * event-columns.ts tableBytes).
   */
  partBytesMax: number;
}

/** Called once segments up to `position` are named in the manifest: the WAL may drop them. */
export type OnSealed = (position: WalPosition) => Promise<void> | void;

/**
 * Rows in sealed segments not yet compacted (about 250 bytes each on disk): past 4M, about
 * 1 GB, ingest waits for compaction (storage-client.ts) instead of filling the disk. A hundred
 * busy project environments hold 16k rows each between compactions; more means compaction is behind.
 */
export const segmentRowsMax = 4_000_000;

export const defaultStorageTuning: StorageTuning = {
  // A seal writes one segment per busy project environment, and each costs about the same
  // whatever its rows (Arrow IPC framing per column, and reading it back for compaction): with
  // a hundred busy projects, seals of 50k rows (500 each) cost the worker 2-3 us per event,
  // 200k about 1.2 us, 400k about 0.9 us (measured; at full ingest sustained 118k -> 140k
  // events/s, peak RSS 767 -> 803 MiB). The buffers hold about 250 bytes per row: 100 MB.
  sealRows: 400_000,
  // The benchmark's 400k events hold about 160 MB of JSON; this bounds buffers of large events
  // (and keeps every text column far below Arrow's 2 GiB of 32-bit offsets).
  sealBytes: 256 * 1024 * 1024,
  // Buffers are padded to every row: 2^23 cells hold at most 64 MiB of numbers (128 MiB with
  // the builders' spare capacity) however sparse the keys.
  sealCells: propertyCellsMax,
  sealAgeMs: 10_000,
  // Level-0 parts of 16k rows: 8 of them merge into one part of partRowsMax, so each event is
  // written to Parquet twice (measured in the service: 4k-row level-0 parts, written three
  // times, gave a quarter less throughput).
  compactRows: 16 * 1024,
  compactAgeMs: 5 * 60_000,
  compactBacklogRows: segmentRowsMax / 2,
  // Bounds a merge's memory (one row group, about 2 MB of Parquet for typical events): at
  // twice this, merges held the worker long enough to delay ingest answers (p99) and grew
  // its heap past 400 MB.
  partRowsMax: parquetRowGroupRows,
  // Rows alone do not bound a merge's memory: events of a few KB, or many keys set on few rows
  // (Arrow pads every column to every row), made parts of 131k rows take over a gigabyte. The
  // benchmark's parts take about 33 MB.
  partBytesMax: 64 * 1024 * 1024,
};

const backgroundTickMs = 1000;
const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Buffer {
  projectId: string;
  dataId: number;
  environment: string;
  events: EventBuffer;
  firstAddedAt: number;
}

/** Events an erasure removed (EventStore.erase): rows buffered, in segments and in parts when it began, and those linked to a group. */
export interface EventErasureCounts {
  events_unsealed: number;
  events_segments: number;
  events_parquet: number;
  group_links: number;
}

/** What an erasure about to commit records (EventStore.erase): its counts so far and the parts its commit drops. */
interface ErasureIntent {
  counts: EventErasureCounts;
  replaced: string[];
}

/** What a query of one partition reads (EventStore.snapshot). */
export interface PartitionSnapshot {
  parts: PartEntry[];
  segments: SegmentEntry[];
  /** Unsealed rows as one Arrow IPC stream, or null. */
  buffered: Uint8Array | null;
  bufferedRows: number;
}

const partitionKey = (dataId: number, environment: string) => `${dataId}/${environment}`;

/** The first of `segments` that take at most `bytesMax` together (an Arrow IPC stream is its buffers), and at least the first. */
function takeWithin(segments: SegmentEntry[], bytesMax: number): SegmentEntry[] {
  let bytes = 0;
  let count = 0;
  while (count < segments.length && (count === 0 || bytes + segments[count]!.bytes <= bytesMax)) bytes += segments[count++]!.bytes;
  return segments.slice(0, count);
}

const fileNumber = (n: number) => String(n).padStart(8, "0");

/** Where records that cannot be stored are kept, under the store's directory (see EventStore.addWalRecord). */
export const quarantineDir = "quarantine";
export const quarantineSuffix = ".record";
/** JavaScriptCore's error when an allocation fails (an ArrayBuffer, a string, an object). */
const isOutOfMemory = (error: unknown) => error instanceof RangeError && error.message === "Out of memory";
const positionText = ({ file, offset }: WalPosition) => `${String(file).padStart(16, "0")}:${offset}`;
/**
 * A quarantined record's file, named by the WAL file and offset where the record ends; it holds
 * the record's payload (event-record.ts layout), the request's JSON text at its end.
 */
export const quarantinePath = (position: WalPosition) => join(quarantineDir, `wal-${positionText(position).replace(":", "-")}${quarantineSuffix}`);

export class EventStore {
  private buffers = new Map<string, Buffer>();
  private bufferedRows = 0;
  /** JSON bytes of the requests whose events are buffered. */
  private bufferedBytes = 0;
  /** Property cells of the buffers (EventBuffer.propertyCells, summed). */
  private bufferedCells = 0;
  /** End of the newest WAL record whose events are in the buffers. */
  private addedThrough: WalPosition;
  /** The last seal asked for, and the last compaction: each kind runs one at a time. */
  private sealing: Promise<unknown> = Promise.resolve();
  private compacting: Promise<unknown> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | null = null;
  private failure: Error | null = null;
  /** A seal asked for by add() and not yet run: one is enough, it takes everything buffered when it runs. */
  private sealAsked = false;
  /**
   * The background tick running, if one is: the next one skips instead of queueing the same
   * work again, and stop() waits for it (it may still queue a compaction).
   */
  private ticking: Promise<void> | null = null;
  /** Told the rows in sealed segments (not yet compacted) after every seal and compaction. */
  private afterStep: (segmentRows: number) => void = () => {};

  private constructor(
    readonly dataDir: string,
    private readonly onSealed: OnSealed,
    private readonly manifests: ManifestLog,
    readonly tuning: StorageTuning,
    private readonly compactor: Compactor,
  ) {
    this.addedThrough = manifests.manifest.walSealedThrough;
  }

  private get manifest(): Readonly<Manifest> {
    return this.manifests.manifest;
  }

  /**
   * Opens the store: drops files the manifest does not name, then buffers the WAL's records past
   * the last seal (read only): all of them, or those up to `replayUpTo` (a store reopened while
   * ingest goes on replays what is durable, and is handed what comes after: see
   * replayedThrough). The store owns `compactor` from here and closes it in close().
   */
  static open(
    dataDir: string, walDir: string, onSealed: OnSealed, tuning: StorageTuning = defaultStorageTuning, compactor: Compactor = compactInPlace,
    replayUpTo?: WalPosition,
  ): EventStore {
    makeDirectories(dataDir);
    const manifests = ManifestLog.open(dataDir);
    const manifest = manifests.manifest;
    removeUnnamedFiles(dataDir, manifest);
    removeTemporaryFiles(join(dataDir, quarantineDir));
    makeDirectories(join(dataDir, "segments"));
    const store = new EventStore(dataDir, onSealed, manifests, tuning, compactor);
    for (const { payload, position } of readWalRecords(walDir, manifest.walSealedThrough)) {
      if (replayUpTo && comparePositions(position, replayUpTo) > 0) break;
      store.addWalRecord(payload, undefined, position);
    }
    return store;
  }

  /** The WAL position of the last record the store holds (sealed or buffered). */
  replayedThrough(): WalPosition {
    return this.addedThrough;
  }

  /** Takes a WAL record's events; `position` is the record's end in the WAL (already durable). */
  add(record: BatchRecordView, position: WalPosition): void {
    const { project_id: projectId, data_id: dataId, environment } = record.header;
    const buffer = this.bufferOf(projectId, dataId, environment);
    const cells = buffer.propertyCells;
    try {
      buffer.appendRecord(record);
    } catch (error) {
      if (buffer.rows === 0) this.buffers.delete(partitionKey(dataId, environment));
      throw error;
    }
    this.added(record.accepted.length, record.bodyBytes, buffer.propertyCells - cells, position);
  }

  /**
   * Takes a WAL record as the log holds it (`payload`, or the two parts encodeBatchRecord
   * gave). A record that cannot be read or buffered (only a bug lets one into the WAL) would
   * stop every later one with it, at every restart: it is set aside whole instead, durably,
   * in quarantine/ (quarantinePath), and the log goes on past it. Nothing of it is buffered.
   * Running out of memory is no fault of the record: that error is thrown, the record stays
   * in the WAL, and the worker's restart replays it.
   */
  addWalRecord(payload: Uint8Array, separateBody: Uint8Array | undefined, position: WalPosition): void {
    let record: BatchRecordView;
    try {
      record = readBatchRecord(payload, separateBody);
      this.add(record, position);
    } catch (error) {
      if (isOutOfMemory(error)) throw error;
      const path = join(this.dataDir, quarantinePath(position));
      const why = `the WAL record ending at ${positionText(position)} cannot be stored (${(error as Error).message})`;
      try {
        writeFileAtomic(path, separateBody ? Buffer.concat([payload, separateBody]) : payload);
      } catch (writeError) {
        // Not set aside, so not passed over either: it stays in the WAL for a later try.
        throw new Error(`${why}, nor kept in quarantine: ${(writeError as Error).message}`);
      }
      console.error(`storage: ${why}; it is kept in ${path}`);
      this.added(0, 0, 0, position);
      // With nothing buffered no seal would come to let the log drop the record (and a restart
      // would set it aside again): one records how far the WAL is stored.
      if (this.bufferedRows === 0) void this.seal().catch(() => {});
    }
  }

  /** Takes stored events as they are (benchmarks and tests that generate rows rather than requests). */
  addRows(projectId: string, dataId: number, environment: string, rows: readonly StoredEvent[], position: WalPosition): void {
    const buffer = this.bufferOf(projectId, dataId, environment);
    const cells = buffer.propertyCells;
    for (const row of rows) buffer.appendStored(row);
    this.added(rows.length, 0, buffer.propertyCells - cells, position);
  }

  private bufferOf(projectId: string, dataId: number, environment: string): EventBuffer {
    const key = partitionKey(dataId, environment);
    let buffer = this.buffers.get(key);
    if (!buffer) {
      buffer = { projectId, dataId, environment, events: new EventBuffer(), firstAddedAt: Date.now() };
      this.buffers.set(key, buffer);
    }
    return buffer.events;
  }

  private added(rows: number, bytes: number, cells: number, position: WalPosition): void {
    this.bufferedRows += rows;
    this.bufferedBytes += bytes;
    this.bufferedCells += cells;
    this.addedThrough = position;
    const full = this.bufferedRows >= this.tuning.sealRows || this.bufferedBytes >= this.tuning.sealBytes || this.bufferedCells >= this.tuning.sealCells;
    if (full && !this.sealAsked) {
      // Records keep arriving while the seal waits its turn: asking again for each would queue
      // thousands of seals of a few rows each, ahead of every compaction.
      this.sealAsked = true;
      void this.seal().catch(() => {}).finally(() => (this.sealAsked = false));
    }
  }

  /** Runs `work` after every earlier step of its kind (seals, or compactions) has finished. */
  private serially<T>(kind: "sealing" | "compacting", work: () => Promise<T> | T): Promise<T> {
    // Each step starts on a fresh task, so records handed over meanwhile are taken between
    // steps: a long run of seals must not stop the worker from draining its backlog.
    const next = this[kind].then(nextTask).then(work);
    this[kind] = next.catch(() => {}).then(() => this.afterStep(this.segmentRows()));
    return next;
  }

  seal(): Promise<void> {
    return this.serially("sealing", async () => {
      if (this.bufferedRows === 0) return this.sealNothingBuffered();
      const sealedThrough = this.addedThrough;
      const buffers = [...this.buffers.values()];
      const bufferedBytes = this.bufferedBytes;
      this.buffers = new Map();
      this.bufferedRows = 0;
      this.bufferedBytes = 0;
      this.bufferedCells = 0;
      const file = join("segments", `seal-${fileNumber(this.manifests.takeFileNumber())}.arrows`);
      try {
        const ranges = writeSealFile(join(this.dataDir, file), buffers.values().map((buffer) => buffer.events.toTable()));
        const sealedAt = Date.now();
        this.manifests.commit({
          walSealedThrough: sealedThrough,
          addSegments: buffers.map((buffer, index): SegmentEntry => ({
            file,
            ...ranges[index]!,
            projectId: buffer.projectId,
            dataId: buffer.dataId,
            environment: buffer.environment,
            rows: buffer.events.rows,
            sealedAt,
          })),
        });
      } catch (error) {
        // Nothing is lost: the events are still in the WAL and go back into the buffers. The
        // seal file stays if the change may be committed (a restart removes it if not).
        if (!(error instanceof ManifestUncertainError)) rmSync(join(this.dataDir, file), { force: true });
        this.restoreBuffers(buffers);
        this.bufferedBytes = bufferedBytes;
        this.failure = error as Error;
        throw error;
      }
      this.failure = null;
      await this.onSealed(sealedThrough);
    });
  }

  /** A seal with no rows: records that buffered nothing (set aside in quarantine/) may still leave the WAL. */
  private async sealNothingBuffered(): Promise<void> {
    const sealedThrough = this.addedThrough;
    if (comparePositions(sealedThrough, this.manifest.walSealedThrough) <= 0) return;
    try {
      this.manifests.commit({ walSealedThrough: sealedThrough });
    } catch (error) {
      this.failure = error as Error;
      throw error;
    }
    this.failure = null;
    await this.onSealed(sealedThrough);
  }

  /** Puts unsealed rows back (a seal runs without yielding, so nothing was added meanwhile). */
  private restoreBuffers(buffers: Buffer[]): void {
    for (const buffer of buffers) this.buffers.set(partitionKey(buffer.dataId, buffer.environment), buffer);
    this.bufferedRows = buffers.reduce((sum, buffer) => sum + buffer.events.rows, 0);
    this.bufferedCells = buffers.reduce((sum, buffer) => sum + buffer.events.propertyCells, 0);
  }

  /**
   * Turns a partition's sealed segments, oldest first, as many as take partBytesMax together
   * (at least one), into Parquet (partition-compaction.ts) on the compactor,
   * then names and writes the new parts and commits them in place of the segments and of the
   * parts they merged. Seals meanwhile add segments the commit leaves alone.
   */
  compact(dataId: number, environment: string): Promise<void> {
    return this.serially("compacting", async () => {
      const segments = takeWithin(
        this.manifest.segments.filter((s) => s.dataId === dataId && s.environment === environment),
        this.tuning.partBytesMax,
      );
      if (segments.length === 0) return;
      const parts = this.manifest.parts.filter((p) => p.dataId === dataId && p.environment === environment);
      const written: PartEntry[] = [];
      let replaced: string[] = [];
      try {
        const { partRowsMax, partBytesMax } = this.tuning;
        const outcome = await this.compactor.run({ dataDir: this.dataDir, segments, parts, partRowsMax, partBytesMax });
        replaced = outcome.replaced;
        for (const { day, level, rows, arrowBytes, parquet } of outcome.written) {
          const file = join("parquet", String(dataId), environment, day, `part-${fileNumber(this.manifests.takeFileNumber())}.parquet`);
          writeFileAtomic(join(this.dataDir, file), parquet);
          written.push({ file, projectId: segments[0]!.projectId, dataId, environment, day, level, rows, bytes: parquet.byteLength, arrowBytes });
        }
        this.manifests.commit({
          // Other partitions' segments share the seal files: drop exactly these entries.
          dropSegments: segments.map(({ file, offset }) => ({ file, offset })),
          addParts: written,
          dropParts: replaced,
        });
      } catch (error) {
        if (!(error instanceof ManifestUncertainError)) for (const part of written) rmSync(join(this.dataDir, part.file), { force: true });
        this.failure = error as Error;
        throw error;
      }
      this.failure = null;
      const stillNamed = new Set(this.manifest.segments.map((s) => s.file));
      const unusedSealFiles = new Set(segments.map((s) => s.file).filter((file) => !stillNamed.has(file)));
      for (const file of [...replaced, ...unusedSealFiles]) rmSync(join(this.dataDir, file), { force: true });
    });
  }

  /**
   * Removes the subjects' events from every partition of their project: seals what is buffered,
   * compacts every partition's segments (seal files hold several partitions' segments, so only
   * when all of them are compacted are the files gone), then rewrites each part holding their
   * rows (event-erasure.ts) and swaps the new parts in with one manifest commit, in turn with
   * compactions. A crash at any point leaves either the old parts or the new ones named; a
   * resumed erasure finds whatever is left.
   *
   * What a crash after the commit would lose of the counts is kept in `intentFile` (written
   * before the commit, with the parts it replaces): asked again, the counts of an earlier try
   * whose commit took place (none of its replaced parts is named any more) are added to this
   * one's, so a resumed erasure counts what an uninterrupted one would.
   */
  async erase(subjects: EventSubjects, intentFile: string | null = null): Promise<EventErasureCounts> {
    const matcher = new EventMatcher(subjects);
    const ofProject = (entry: { projectId: string }) => entry.projectId === subjects.projectId;
    const carried = this.committedErasure(intentFile);
    let unsealed = 0;
    for (const buffer of this.buffers.values()) if (ofProject(buffer)) unsealed += matcher.filter(buffer.events.toTable()).removed;
    let inSegments = 0;
    for (const segment of this.manifest.segments.filter(ofProject)) inSegments += matcher.filter(readSegmentTable(join(this.dataDir, segment.file), segment)).removed;
    await this.seal();
    const sealFiles = new Set(this.manifest.segments.map((segment) => segment.file));
    const partitions = new Set(this.manifest.segments.map((s) => partitionKey(s.dataId, s.environment)));
    for (const key of partitions) {
      const [dataId, environment] = key.split("/");
      const waiting = () => this.manifest.segments.some((s) => sealFiles.has(s.file) && partitionKey(s.dataId, s.environment) === key);
      while (waiting()) await this.compact(Number(dataId), environment!);
    }
    return this.serially("compacting", async () => {
      const partName = (part: PartEntry) => join("parquet", String(part.dataId), part.environment, part.day, `part-${fileNumber(this.manifests.takeFileNumber())}.parquet`);
      const { written, replaced, removed, groupLinks } = await rewriteParts(this.dataDir, this.manifest.parts.filter(ofProject), matcher, partName);
      // The buffered and sealed rows were compacted into parts before the rewrite found them there.
      const counts: EventErasureCounts = {
        events_unsealed: carried.events_unsealed + unsealed,
        events_segments: carried.events_segments + inSegments,
        events_parquet: carried.events_parquet + Math.max(0, removed - unsealed - inSegments),
        group_links: carried.group_links + groupLinks,
      };
      try {
        if (intentFile !== null && replaced.length > 0) writeFileAtomic(intentFile, JSON.stringify({ counts, replaced } satisfies ErasureIntent));
        if (replaced.length > 0) this.manifests.commit({ addParts: written, dropParts: replaced });
      } catch (error) {
        if (!(error instanceof ManifestUncertainError)) for (const part of written) rmSync(join(this.dataDir, part.file), { force: true });
        throw error;
      }
      for (const file of replaced) rmSync(join(this.dataDir, file), { force: true });
      return counts;
    });
  }

  /** The counts an earlier try of an erasure recorded in `intentFile`, when its commit took place; zero counts otherwise. */
  private committedErasure(intentFile: string | null): EventErasureCounts {
    const none: EventErasureCounts = { events_unsealed: 0, events_segments: 0, events_parquet: 0, group_links: 0 };
    if (intentFile === null || !existsSync(intentFile)) return none;
    const intent = JSON.parse(readFileSync(intentFile, "utf8")) as ErasureIntent;
    const named = new Set(this.manifest.parts.map((part) => part.file));
    return intent.replaced.some((file) => named.has(file)) ? none : intent.counts;
  }

  /** Seals every buffer and compacts every partition (tests, shutdown, the benchmark). */
  async flush(): Promise<void> {
    await this.seal();
    for (const key of new Set(this.manifest.segments.map((s) => partitionKey(s.dataId, s.environment)))) {
      const [dataId, environment] = key.split("/");
      // A compaction may take only some of the segments (partBytesMax).
      while (this.manifest.segments.some((s) => partitionKey(s.dataId, s.environment) === key)) await this.compact(Number(dataId), environment!);
    }
  }

  /** Rows in sealed segments, waiting for compaction. */
  segmentRows(): number {
    return this.manifest.segments.reduce((sum, segment) => sum + segment.rows, 0);
  }

  /**
   * Seals by age and compacts by row count or age, once a second; `afterTick` sees every
   * outcome, `afterStep` the rows left in segments after each seal or compaction.
   */
  startBackground(afterTick: () => void = () => {}, afterStep: (segmentRows: number) => void = () => {}): void {
    this.afterStep = afterStep;
    this.timer = setInterval(() => {
      if (this.ticking) return;
      this.ticking = this.tick()
        .catch((error) => console.error("storage background work failed:", error))
        .finally(() => {
          this.ticking = null;
          afterTick();
        });
    }, backgroundTickMs);
  }

  private async tick(): Promise<void> {
    const now = Date.now();
    const oldest = Math.min(...[...this.buffers.values()].map((buffer) => buffer.firstAddedAt));
    if (this.bufferedRows > 0 && now - oldest >= this.tuning.sealAgeMs) await this.seal();
    const byPartition = new Map<string, SegmentEntry[]>();
    for (const segment of this.manifest.segments) {
      const key = partitionKey(segment.dataId, segment.environment);
      const segments = byPartition.get(key);
      if (segments) segments.push(segment);
      else byPartition.set(key, [segment]);
    }
    const partitions = [...byPartition.values()]
      .map((segments) => ({ segments, rows: segments.reduce((sum, s) => sum + s.rows, 0), oldestSealed: Math.min(...segments.map((s) => s.sealedAt)) }))
      .sort((a, b) => b.rows - a.rows);
    let waitingRows = partitions.reduce((sum, partition) => sum + partition.rows, 0);
    for (const { segments, rows, oldestSealed } of partitions) {
      if (rows >= this.tuning.compactRows || now - oldestSealed >= this.tuning.compactAgeMs || waitingRows > this.tuning.compactBacklogRows) {
        await this.compact(segments[0]!.dataId, segments[0]!.environment);
        waitingRows -= rows;
      }
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    await Promise.all([this.sealing, this.compacting]);
  }

  /** Releases the manifest log (after stop() and a last seal: nothing may change the store after this). */
  close(): void {
    this.compactor.close();
    this.manifests.close();
  }

  /** Why background storage work is failing, or null. */
  problem(): string | null {
    return this.failure ? this.failure.message : null;
  }

  /** Every stored event of a partition: Parquet parts, sealed segments, then buffered rows. */
  scan(dataId: number, environment: string): StoredEvent[] {
    return this.tables(dataId, environment).flatMap((table) => tableToEvents(table));
  }

  private tables(dataId: number, environment: string): Table[] {
    const buffered = this.buffers.get(partitionKey(dataId, environment))?.events.toTable() ?? null;
    return partitionTables(this.dataDir, this.manifest, dataId, environment, buffered);
  }

  /**
   * What a query of one partition reads now: the live files and, as one Arrow IPC stream, the
   * rows not sealed yet (null when there are none), so results include events acknowledged a
   * moment ago.
   */
  snapshot(dataId: number, environment: string): PartitionSnapshot {
    const buffered = this.buffers.get(partitionKey(dataId, environment))?.events;
    return {
      parts: this.manifest.parts.filter((part) => part.dataId === dataId && part.environment === environment),
      segments: this.manifest.segments.filter((segment) => segment.dataId === dataId && segment.environment === environment),
      buffered: buffered ? tableToIPC(buffered.toTable(), "stream") : null,
      bufferedRows: buffered?.rows ?? 0,
    };
  }

  /** Every (project, data id, environment) with stored or buffered events. */
  partitions(): { projectId: string; dataId: number; environment: string }[] {
    const found = new Map<string, { projectId: string; dataId: number; environment: string }>();
    for (const entry of [...this.manifest.parts, ...this.manifest.segments, ...this.buffers.values()]) {
      found.set(partitionKey(entry.dataId, entry.environment), { projectId: entry.projectId, dataId: entry.dataId, environment: entry.environment });
    }
    return [...found.values()];
  }

  liveFiles(): { segments: SegmentEntry[]; parts: PartEntry[] } {
    return { segments: [...this.manifest.segments], parts: [...this.manifest.parts] };
  }
}
