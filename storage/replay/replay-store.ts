// Session recordings of one region: accepted chunks go to a write-ahead log of their own
// (group commit; answered only once fsynced), and a flush compacts what the log holds into one
// immutable zstd block per session, indexed in region.sqlite in the same transaction that moves
// the log's checkpoint. Then the log is truncated.
//
// Crash safety, step by step: blocks are written whole (temporary name, fsync, rename) before
// the index names them; the index transaction (chunks, blocks, sessions, checkpoint) is
// synced before the log drops anything; a crash before that commit replays the same records
// at the next start (block names hash their content, so a block written again replaces its
// twin, and one the index never named is removed at start). (session, seq) pairs are claimed
// at ingest against both the log's pending chunks and the index, so an acknowledged chunk is
// stored once.
import { readdirSync, rmSync, statSync } from "node:fs";
import { open, rm } from "node:fs/promises";
import { join } from "node:path";
import { makeDirectories, removeTemporaryFiles, writeFileAtomicAsync } from "../atomic-file.ts";
import { comparePositions, WriteAheadLog, type WalPosition } from "../wal.ts";
import type { ReplayBlockRow, ReplayIndex, ReplaySessionRow } from "./replay-index.ts";
import { mergeRanges, mergeVisits, secondsIn, summarise, type RrwebEvent } from "./replay-summary.ts";

/** A flush runs at least this often, so recordings appear within about half a minute. */
export const replayFlushIntervalMs = 30_000;
/** A flush starts early once the log holds this much since the last one (bounds what a flush holds in memory). */
export const replayFlushLogBytes = 64 * 1024 * 1024;
/** zstd level of blocks: 3 is zstd's default, about as fast as writing the JSON itself here. */
const blockZstdLevel = 3;
const blockSuffix = ".json.zst";

export interface ReplayChunk {
  sessionId: string;
  windowId: string | null;
  seq: number;
  distinctId: string;
  platform: string;
  mode: string;
  events: RrwebEvent[];
}

/** One request's accepted chunks of one project environment: one log record. */
export interface ReplayRecord {
  projectId: string;
  dataId: number;
  environment: string;
  receivedAt: number;
  chunks: ReplayChunk[];
}

export interface FlushResult {
  sessions: number;
  blocks: number;
  chunks: number;
}

const chunkKey = (projectId: string, environment: string, sessionId: string, seq: number) => `${projectId}\u0000${environment}\u0000${sessionId}\u0000${seq}`;
const sessionKey = (projectId: string, environment: string, sessionId: string) => `${projectId}\u0000${environment}\u0000${sessionId}`;

interface SessionGroup {
  record: ReplayRecord;
  chunks: ReplayChunk[];
  /** When the newest of its chunks arrived (server time). */
  receivedAt: number;
}

interface PreparedBlock {
  group: SessionGroup;
  block: ReplayBlockRow;
  summary: ReturnType<typeof summarise>;
}

/** What an erasure deleted of recordings (ReplayStore.eraseDistinctIds). */
export interface ReplayErasureCounts {
  sessions: number;
  chunks: number;
}

export class ReplayStore {
  /** (session, seq) of chunks in the log and not yet in the index, plus those being appended. */
  private readonly pending = new Set<string>();
  /**
   * Claimed chunks whose append has not settled, each with what resolves when it has: a second
   * copy waits for it, and is a duplicate only if the first became durable (a failed append
   * releases the claim, and the copy is stored instead).
   */
  private readonly unsettled = new Map<string, { settled: Promise<void>; settle: () => void }>();
  /** Compaction and deletions run one at a time (a sweep must not delete a block a flush is about to name). */
  private exclusiveWork: Promise<unknown> = Promise.resolve();
  /** The end of the newest record whose append resolved: everything before it is durable. */
  private acknowledged: WalPosition;
  private flushing: Promise<FlushResult> | null = null;
  private bytesSinceFlush = 0;

  private constructor(
    private readonly blocksDir: string,
    private readonly log: WriteAheadLog,
    readonly index: ReplayIndex,
    /** region.sqlite's journal: synced before the log drops records the index now holds. */
    private readonly journalPath: string,
  ) {
    this.acknowledged = log.head();
  }

  /** Opens `{regionDir}/replays`: the log (torn tail cut), pending chunks read back, blocks the index never named removed. */
  static async open(regionDir: string, index: ReplayIndex, journalPath: string): Promise<ReplayStore> {
    const root = join(regionDir, "replays");
    const blocksDir = join(root, "blocks");
    makeDirectories(blocksDir);
    const log = await WriteAheadLog.open(join(root, "wal"));
    const store = new ReplayStore(blocksDir, log, index, journalPath);
    for (const { record } of store.unflushed()) {
      for (const chunk of record.chunks) store.pending.add(chunkKey(record.projectId, record.environment, chunk.sessionId, chunk.seq));
    }
    store.removeUnnamedBlocks();
    return store;
  }

  /** Block files the index does not name: written by a flush whose commit a crash took back, or left by a deletion. */
  private removeUnnamedBlocks(): void {
    const named = this.index.blockPaths();
    const walk = (dir: string, relative: string, depth: number) => {
      removeTemporaryFiles(dir);
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        const child = relative ? `${relative}/${name}` : name;
        if (depth < 3 && statSync(path).isDirectory()) {
          walk(path, child, depth + 1);
          if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
        } else if (depth === 3 && !named.has(child.slice(0, -blockSuffix.length))) {
          rmSync(path, { force: true });
        }
      }
    };
    walk(this.blocksDir, "", 0);
  }

  /** Log records past the checkpoint, up to `upTo` when given. */
  private *unflushed(upTo?: WalPosition): Generator<{ record: ReplayRecord; position: WalPosition }> {
    for (const { payload, position } of this.log.records(this.index.checkpoint())) {
      if (upTo && comparePositions(position, upTo) > 0) return;
      yield { record: JSON.parse(new TextDecoder().decode(payload)) as ReplayRecord, position };
    }
  }

  /** Whether a chunk was acknowledged before (in the log or the index). */
  known(projectId: string, environment: string, sessionId: string, seq: number): boolean {
    return this.pending.has(chunkKey(projectId, environment, sessionId, seq)) || this.index.hasChunk(projectId, environment, sessionId, seq);
  }

  /**
   * Claims a chunk for a request about to append it (append or release it next): false when it
   * is stored already. A copy claimed by a request still appending it is waited for.
   */
  async claim(projectId: string, environment: string, sessionId: string, seq: number): Promise<boolean> {
    const key = chunkKey(projectId, environment, sessionId, seq);
    for (let other = this.unsettled.get(key); other; other = this.unsettled.get(key)) await other.settled;
    if (this.known(projectId, environment, sessionId, seq)) return false;
    this.pending.add(key);
    const { promise, resolve } = Promise.withResolvers<void>();
    this.unsettled.set(key, { settled: promise, settle: resolve });
    return true;
  }

  /** Gives claims back without storing their chunks (the request failed before its append). */
  release(projectId: string, environment: string, chunks: readonly ReplayChunk[]): void {
    for (const chunk of chunks) {
      const key = chunkKey(projectId, environment, chunk.sessionId, chunk.seq);
      this.pending.delete(key);
      this.settle(key);
    }
  }

  private settle(key: string): void {
    this.unsettled.get(key)?.settle();
    this.unsettled.delete(key);
  }

  /** Appends one request's claimed chunks; resolves once they are durable. On failure their claims are released (a retry may bring them again). */
  async append(record: ReplayRecord): Promise<void> {
    const payload = new TextEncoder().encode(JSON.stringify(record));
    let position: WalPosition;
    try {
      position = await this.log.append(payload);
    } catch (error) {
      this.release(record.projectId, record.environment, record.chunks);
      throw error;
    }
    for (const chunk of record.chunks) this.settle(chunkKey(record.projectId, record.environment, chunk.sessionId, chunk.seq));
    if (comparePositions(position, this.acknowledged) > 0) this.acknowledged = position;
    this.bytesSinceFlush += payload.byteLength;
  }

  /** Runs `work` after every compaction or deletion before it, and before any after it. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.exclusiveWork.then(work);
    this.exclusiveWork = result.catch(() => {});
    return result;
  }

  /** Whether enough arrived since the last flush to start one early. */
  flushDue(): boolean {
    return this.bytesSinceFlush >= replayFlushLogBytes;
  }

  /** Why appends are refused, or null. */
  unavailableReason(): string | null {
    return this.log.unavailableReason();
  }

  /** Compacts every acknowledged chunk in the log into blocks (one flush at a time; a call during one waits for it). */
  flush(): Promise<FlushResult> {
    this.flushing ??= this.exclusive(() => this.compact()).finally(() => (this.flushing = null));
    return this.flushing;
  }

  private async compact(): Promise<FlushResult> {
    const upTo = this.acknowledged;
    this.bytesSinceFlush = 0;
    const from = this.index.checkpoint();
    if (comparePositions(upTo, from) <= 0) return { sessions: 0, blocks: 0, chunks: 0 };
    const groups = new Map<string, SessionGroup>();
    const flushedKeys: string[] = [];
    for (const { record } of this.unflushed(upTo)) {
      for (const chunk of record.chunks) {
        flushedKeys.push(chunkKey(record.projectId, record.environment, chunk.sessionId, chunk.seq));
        const key = sessionKey(record.projectId, record.environment, chunk.sessionId);
        const group = groups.get(key);
        if (group) {
          group.chunks.push(chunk);
          group.receivedAt = Math.max(group.receivedAt, record.receivedAt);
        } else {
          groups.set(key, { record, chunks: [chunk], receivedAt: record.receivedAt });
        }
      }
    }
    const prepared: PreparedBlock[] = [];
    for (const group of groups.values()) {
      const block = await this.writeBlock(group);
      if (block) prepared.push(block);
    }
    this.index.transaction(() => {
      for (const { group, block, summary } of prepared) {
        const { projectId, environment } = group.record;
        const sessionId = group.chunks[0]!.sessionId;
        for (const chunk of group.chunks) this.index.addChunk(projectId, environment, sessionId, chunk.seq);
        this.index.addBlock(projectId, environment, sessionId, block);
        this.index.putSession(mergeSession(this.index.session(projectId, environment, sessionId), group, block, summary));
      }
      this.index.setCheckpoint(upTo);
    });
    await syncFileAsync(this.journalPath);
    await this.log.truncateUpTo(upTo);
    for (const key of flushedKeys) this.pending.delete(key);
    return { sessions: prepared.length, blocks: prepared.length, chunks: prepared.reduce((sum, { group }) => sum + group.chunks.length, 0) };
  }

  /** Writes a group's new chunks as one block; null when the index has every one already (a flush replayed after a crash). */
  private async writeBlock(group: SessionGroup): Promise<PreparedBlock | null> {
    const { projectId, environment, dataId } = group.record;
    const seen = new Set<number>();
    group.chunks = group.chunks
      .filter((chunk) => !seen.has(chunk.seq) && seen.add(chunk.seq) && !this.index.hasChunk(projectId, environment, chunk.sessionId, chunk.seq))
      .sort((a, b) => a.seq - b.seq);
    if (group.chunks.length === 0) return null;
    // Stable: events of one millisecond keep the order of their chunks.
    const events = group.chunks.flatMap((chunk) => chunk.events).sort((a, b) => a.timestamp - b.timestamp);
    const summary = summarise(events);
    const compressed = await Bun.zstdCompress(new TextEncoder().encode(JSON.stringify({ events })), { level: blockZstdLevel });
    const hash = new Bun.CryptoHasher("sha256").update(compressed).digest("hex").slice(0, 16);
    const name = `${summary.startMs}-${hash}`;
    await writeFileAtomicAsync(this.blockPath(dataId, environment, group.chunks[0]!.sessionId, name), compressed);
    return { group, summary, block: { name, startMs: summary.startMs, endMs: summary.endMs, eventCount: events.length, sizeBytes: compressed.byteLength } };
  }

  blockPath(dataId: number, environment: string, sessionId: string, name: string): string {
    return join(this.blocksDir, String(dataId), environment, sessionId, `${name}${blockSuffix}`);
  }

  /**
   * Deletes recordings: the index first, in one transaction, synced; then their files (a crash
   * between leaves files the next start removes). Never while a compaction runs.
   */
  deleteSessions(sessions: readonly ReplaySessionRow[]): Promise<void> {
    return this.exclusive(async () => {
      if (sessions.length === 0) return;
      this.index.transaction(() => {
        for (const session of sessions) this.index.deleteSession(session.projectId, session.environment, session.sessionId);
      });
      await syncFileAsync(this.journalPath);
      for (const session of sessions) await rm(join(this.blocksDir, String(session.dataId), session.environment, session.sessionId), { recursive: true, force: true });
    });
  }

  /**
   * Deletes the recordings of these distinct ids (an erasure) with whatever of them is still in
   * the log: the log moves to a new file, every chunk acknowledged before is compacted into
   * blocks, the files before it are dropped, then the sessions go (deleteSessions). Resolves
   * with the sessions and chunks deleted, as `counted` takes them before the deletion (and may
   * answer counts recorded by an earlier try instead).
   */
  async eraseDistinctIds(
    projectId: string,
    distinctIds: readonly string[],
    counted: (counts: ReplayErasureCounts) => ReplayErasureCounts = (counts) => counts,
  ): Promise<ReplayErasureCounts> {
    const next = await this.log.startNewFile();
    await this.log.settled();
    // A flush under way may have started before those appends: the next one takes every one of them.
    await this.flushing?.catch(() => {});
    await this.flush();
    await this.exclusive(() => this.log.truncateUpTo({ file: next, offset: 0 }));
    const sessions = this.index.sessionsOf(projectId, distinctIds);
    const counts = counted({ sessions: sessions.length, chunks: sessions.reduce((sum, session) => sum + session.chunkCount, 0) });
    await this.deleteSessions(sessions);
    return counts;
  }

  async close(): Promise<void> {
    if (this.flushing) await this.flushing.catch(() => {});
    await this.log.close();
  }
}

async function syncFileAsync(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The session's index row with a new block merged in (a new row for its first block). */
function mergeSession(existing: ReplaySessionRow | null, group: SessionGroup, block: ReplayBlockRow, summary: ReturnType<typeof summarise>): ReplaySessionRow {
  const first = group.chunks[0]!;
  // Blocks of one session may overlap in time (chunks flushed apart, two tabs): seconds and URLs are merged as sets.
  const activeRanges = mergeRanges(existing?.activeRanges ?? [], summary.activeRanges);
  const visits = mergeVisits(existing?.visits ?? [], summary.visits);
  return {
    projectId: group.record.projectId,
    environment: group.record.environment,
    sessionId: first.sessionId,
    dataId: group.record.dataId,
    distinctId: existing?.distinctId ?? first.distinctId,
    platform: existing?.platform ?? first.platform,
    mode: existing?.mode ?? first.mode,
    startMs: Math.min(existing?.startMs ?? summary.startMs, summary.startMs),
    endMs: Math.max(existing?.endMs ?? summary.endMs, summary.endMs),
    activeSeconds: secondsIn(activeRanges),
    activeRanges,
    firstUrl: visits[0]?.url ?? null,
    visits,
    pageCount: (existing?.pageCount ?? 0) + summary.pageCount,
    clickCount: (existing?.clickCount ?? 0) + summary.clickCount,
    keypressCount: (existing?.keypressCount ?? 0) + summary.keypressCount,
    consoleErrorCount: (existing?.consoleErrorCount ?? 0) + summary.consoleErrorCount,
    chunkCount: (existing?.chunkCount ?? 0) + group.chunks.length,
    eventCount: (existing?.eventCount ?? 0) + summary.eventCount,
    sizeBytes: (existing?.sizeBytes ?? 0) + block.sizeBytes,
    receivedMs: Math.max(existing?.receivedMs ?? 0, group.receivedAt),
  };
}
