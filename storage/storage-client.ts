// The request thread's handle on the storage worker. add() hands over a durable WAL record
// (its bytes are transferred, not copied); seal, flush and stop are calls with answers; the
// worker reports sealed WAL positions (so the WAL can be truncated) and storage problems.
// Records the worker has not taken yet are its backlog: past `backlogBytesMax`, callers wait
// (ingest answers later) instead of letting memory grow while the worker catches up. Likewise
// when compaction falls behind: past `segmentRowsMax` rows waiting in segments, callers wait
// until compaction brings them back, so ingest runs at the speed storage sustains instead of
// filling the disk with uncompacted segments.
import { segmentRowsMax, type EventErasureCounts, type PartitionSnapshot, type StorageTuning } from "./event-store.ts";
import type { EventSubjects } from "./event-erasure.ts";
import { comparePositions, type WalPosition } from "./wal.ts";
import type { WorkerReply, WorkerRequest } from "./storage-worker.ts";
import { PendingCalls } from "./pending-calls.ts";

const threadName = (role: string, label: string | undefined) => (label ? `${role} ${label}` : role);

/** About half a second of the worker's work at full ingest speed. */
export const workerBacklogBytesMax = 32 * 1024 * 1024;
/**
 * A storage worker that dies (an uncaught error) is restarted at most this many times within
 * workerRestartWindowMs; past that the client gives up (see StorageClient).
 */
export const workerRestartsMax = 3;
export const workerRestartWindowMs = 10 * 60_000;

export interface StorageClientOptions {
  dataDir: string;
  walDir: string;
  tuning: StorageTuning;
  /** Called with each WAL position up to which records are sealed (the WAL may drop them). */
  onSealed: (position: WalPosition) => void;
  /** The end of what is durable in the WAL: a restarted worker replays up to it. */
  durableHead: () => WalPosition;
  backlogBytesMax?: number;
  segmentRowsMax?: number;
  /**
   * Names the store's threads (the region code): `storage {label}` and `compaction {label}` in
   * `ps -L` and `top -H`, and in bench/ingest's CPU per thread (Bun names a worker's OS thread
   * after its `name`; Linux keeps 15 bytes of it).
   */
  threadLabel?: string;
}

interface QueuedRecord {
  head: Uint8Array;
  body: Uint8Array;
  position: WalPosition;
}

/** An uncaught error's own message: Bun reports a worker's as a source excerpt, the message and a trace. */
const uncaughtMessage = (report: string) => /^error: (.+)$/m.exec(report)?.[1] ?? report.split("\n")[0]!;

/** Ends a worker's thread (and the compaction thread it started); resolves once it has ended. */
function endWorker(worker: Worker): Promise<void> {
  const ended = new Promise<void>((resolve) => worker.addEventListener("close", () => resolve()));
  worker.terminate();
  return ended;
}

/** A storage worker that has opened the store and replayed the WAL (up to `replayUpTo`). */
function startWorker({ dataDir, walDir, tuning, threadLabel }: StorageClientOptions, replayUpTo?: WalPosition): Promise<{ worker: Worker; replayedThrough: WalPosition }> {
  const worker = new Worker(new URL("./storage-worker.ts", import.meta.url).href, { name: threadName("storage", threadLabel) });
  return new Promise((resolve, reject) => {
    worker.onmessage = (message: MessageEvent<WorkerReply>) => {
      if (message.data.type === "opened") resolve({ worker, replayedThrough: message.data.replayedThrough });
      else if (message.data.type === "open-failed") {
        worker.terminate();
        reject(new Error(`storage worker could not open ${dataDir}: ${message.data.message}`));
      }
    };
    worker.onerror = (event) => reject(new Error(`storage worker failed to start: ${event.message}`));
    worker.postMessage({ type: "open", dataDir, walDir, tuning, replayUpTo, compactionThreadName: threadName("compaction", threadLabel) } satisfies WorkerRequest);
  });
}

/**
 * If the worker dies, whatever it held unsealed is still in the WAL: a new worker replays the
 * WAL up to its durable end, and records added meanwhile are queued and handed over once it
 * is open (those it replayed already are not). Calls under way when it died fail; calls made
 * while it is replaced wait for the new one. Past workerRestartsMax restarts the client gives
 * up: it reports the problem, no caller waits for the backlog any more, calls fail, and
 * records stay in the WAL for the next start.
 */
export class StorageClient {
  private readonly pending = new PendingCalls();
  private lastProblem: string | null = null;
  private stopped: Promise<void> | null = null;
  private backlogBytes = 0;
  private segmentRows = 0;
  private backlogWaiters: (() => void)[] = [];
  /** The live worker; null while a failed one is being replaced, or once the client gave up. */
  private worker: Worker | null = null;
  private lastWorkerError: string | null = null;
  /** Records added while a new worker opens. */
  private queued: QueuedRecord[] = [];
  /** Settles once a failed worker's replacement is open (or the client gave up). */
  private restarting: Promise<void> | null = null;
  private restartTimes: number[] = [];
  /** Why the client gave up on the worker, or null. */
  private gaveUp: string | null = null;
  private readonly backlogBytesMax: number;
  private readonly segmentRowsMax: number;

  private constructor(private readonly options: StorageClientOptions, worker: Worker) {
    this.backlogBytesMax = options.backlogBytesMax ?? workerBacklogBytesMax;
    this.segmentRowsMax = options.segmentRowsMax ?? segmentRowsMax;
    this.attach(worker);
  }

  static async start(options: StorageClientOptions): Promise<StorageClient> {
    const { worker } = await startWorker(options);
    return new StorageClient(options, worker);
  }

  private attach(worker: Worker): void {
    this.worker = worker;
    worker.onmessage = (message: MessageEvent<WorkerReply>) => this.receive(message.data);
    worker.onerror = (event) => {
      console.error("storage worker failed:", event.message);
      this.lastWorkerError = uncaughtMessage(event.message);
    };
    worker.addEventListener("close", () => this.workerGone(worker));
  }

  private workerGone(worker: Worker): void {
    if (worker !== this.worker) return;
    const reason = `storage worker failed: ${this.lastWorkerError ?? "it exited"}`;
    this.worker = null;
    this.lastWorkerError = null;
    // Calls under way (a stop call among them) get no answer now.
    this.failPending(reason);
    if (this.stopped) return;
    this.backlogBytes = 0;
    const now = Date.now();
    this.restartTimes = this.restartTimes.filter((time) => now - time < workerRestartWindowMs);
    if (this.restartTimes.length >= workerRestartsMax) {
      this.giveUp(`${reason} (restarted ${workerRestartsMax} times within ${workerRestartWindowMs / 60_000} minutes; restart the service)`);
      return;
    }
    this.restartTimes.push(now);
    this.lastProblem = `${reason}; restarting it`;
    this.restarting = startWorker(this.options, this.options.durableHead()).then(
      ({ worker: next, replayedThrough }) => {
        if (this.stopped) return endWorker(next);
        this.attach(next);
        this.lastProblem = null;
        for (const record of this.queued.splice(0)) {
          if (comparePositions(record.position, replayedThrough) > 0) this.post(record);
        }
        if (this.withinLimits()) this.releaseBacklogWaiters();
      },
      (error: Error) => this.giveUp(`${reason}; its restart failed: ${error.message}`),
    ).finally(() => (this.restarting = null));
  }

  private giveUp(reason: string): void {
    this.gaveUp = reason;
    this.lastProblem = reason;
    this.queued = [];
    this.failPending(reason);
  }

  private failPending(reason: string): void {
    this.pending.failAll(reason);
    // Nothing will drain the backlog now; the records are durable in the WAL either way.
    this.releaseBacklogWaiters();
  }

  private releaseBacklogWaiters(): void {
    for (const release of this.backlogWaiters.splice(0)) release();
  }

  private receive(reply: WorkerReply): void {
    if (reply.type === "added") {
      this.backlogBytes -= reply.bytes;
      if (this.withinLimits()) this.releaseBacklogWaiters();
    } else if (reply.type === "segments") {
      this.segmentRows = reply.rows;
      if (this.withinLimits()) this.releaseBacklogWaiters();
    } else if (reply.type === "sealed") this.options.onSealed(reply.position);
    else if (reply.type === "status") {
      this.lastProblem = reply.problem;
      if (this.withinLimits()) this.releaseBacklogWaiters();
    }
    else if (reply.type === "result") this.pending.settle(reply.id, reply.error, reply.value);
  }

  /**
   * `head` and `body` are the parts of an encoded record already durable in the WAL, ending at
   * `position`. Their memory moves to the worker (a part that is a view into a larger buffer
   * is copied first, so no one else's bytes are taken away); the caller must not use them again.
   */
  add(head: Uint8Array, body: Uint8Array, position: WalPosition): void {
    // Given up: the record is durable in the WAL, and the next start replays it.
    if (this.gaveUp) return;
    if (!this.worker) {
      this.queued.push({ head, body, position });
      return;
    }
    this.post({ head, body, position });
  }

  private post({ head, body, position }: QueuedRecord): void {
    const [ownHead, ownBody] = [head, body].map((part) =>
      part.byteOffset === 0 && part.byteLength === part.buffer.byteLength ? part : part.slice(),
    ) as [Uint8Array, Uint8Array];
    const transfer = [ownHead.buffer as ArrayBuffer];
    if (ownBody.buffer !== ownHead.buffer) transfer.push(ownBody.buffer as ArrayBuffer);
    this.backlogBytes += ownHead.byteLength + ownBody.byteLength;
    this.worker!.postMessage({ type: "add", head: ownHead, body: ownBody, position } satisfies WorkerRequest, transfer);
  }

  /**
   * Whether callers may go on: the backlog is within its bound and so are the segments waiting
   * for compaction, unless compaction is failing (then waiting would only stall ingest; the
   * problem shows in /health and writes fail on their own when storage cannot take them) or
   * the client gave up on the worker.
   */
  private withinLimits(): boolean {
    if (this.stopped || this.gaveUp) return true;
    return this.backlogBytes <= this.backlogBytesMax && (this.segmentRows <= this.segmentRowsMax || this.lastProblem !== null);
  }

  /** Resolves once the worker's backlog and the segments waiting for compaction are within their bounds (at once when they are). */
  backlogWithinLimit(): Promise<void> {
    if (this.withinLimits()) return Promise.resolve();
    return new Promise((resolve) => this.backlogWaiters.push(resolve));
  }

  /** A call to the worker: `request` makes the request under the call's id. */
  private ask<T>(request: (id: number) => WorkerRequest): Promise<T> {
    if (this.stopped) return Promise.reject(new Error("storage worker is stopped"));
    const worker = this.worker;
    // A call made while a failed worker is replaced goes to the new one.
    if (!worker && this.restarting) return this.restarting.then(() => this.ask<T>(request));
    if (!worker) return Promise.reject(new Error(this.gaveUp ?? "storage worker is not running"));
    return this.pending.start((id) => worker.postMessage(request(id)));
  }

  private call = (method: "seal" | "flush" | "stop") => this.ask<void>((id) => ({ type: "call", id, method }));

  seal = () => this.call("seal");
  flush = () => this.call("flush");

  /** The live files and unsealed rows of one partition, for a query (see EventStore.snapshot). */
  snapshot(dataId: number, environment: string): Promise<PartitionSnapshot> {
    return this.ask((id) => ({ type: "snapshot", id, dataId, environment }));
  }

  /** Removes the subjects' events from every file and buffer of their project (EventStore.erase, `intentFile` as there). */
  erase(subjects: EventSubjects, intentFile: string | null = null): Promise<EventErasureCounts> {
    return this.ask((id) => ({ type: "erase", id, subjects, intentFile }));
  }

  /** Why background storage work is failing, or null. */
  problem(): string | null {
    return this.lastProblem;
  }

  /**
   * Stops background work, seals what is buffered, and ends the worker; resolves once its
   * thread has ended (once; later calls wait for the same stop).
   */
  stop(): Promise<void> {
    if (!this.stopped) {
      const worker = this.worker;
      // Without a worker there is nothing to seal: what it would have held is in the WAL. A
      // replacement being opened is ended before the stop is over (it sees `stopped`).
      const stopping = worker ? this.call("stop") : (this.restarting ?? Promise.resolve());
      this.stopped = stopping.finally(async () => {
        // A worker that died during the stop has ended already (workerGone let it go).
        if (worker && worker === this.worker) await endWorker(worker);
        this.failPending("storage worker is stopped");
      });
      this.releaseBacklogWaiters();
    }
    return this.stopped;
  }
}
