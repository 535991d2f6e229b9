// The request thread's handle on the storage worker. add() hands over a durable WAL record
// (its bytes are transferred, not copied); seal, flush and stop are calls with answers; the
// worker reports sealed WAL positions (so the WAL can be truncated) and storage problems.
// Records the worker has not taken yet are its backlog: past `backlogBytesMax`, callers wait
// (ingest answers later) instead of letting memory grow while the worker catches up. Likewise
// when compaction falls behind: past `segmentRowsMax` rows waiting in segments, callers wait
// until compaction brings them back, so ingest runs at the speed storage sustains instead of
// filling the disk with uncompacted segments.
import { segmentRowsMax, type EventCursor, type PartitionSnapshot, type StorageTuning } from "./event-store.ts";
import type { StoredEvent } from "./event-record.ts";
import type { WalPosition } from "./wal.ts";
import type { WorkerReply, WorkerRequest } from "./storage-worker.ts";

/** About half a second of the worker's work at full ingest speed. */
export const workerBacklogBytesMax = 32 * 1024 * 1024;

export class StorageClient {
  private nextCallId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private lastProblem: string | null = null;
  private stopped: Promise<void> | null = null;
  private backlogBytes = 0;
  private segmentRows = 0;
  private backlogWaiters: (() => void)[] = [];

  private constructor(
    private readonly worker: Worker,
    private readonly onSealed: (position: WalPosition) => void,
    private readonly backlogBytesMax: number,
    private readonly segmentRowsMax: number,
  ) {
    worker.onmessage = (message: MessageEvent<WorkerReply>) => this.receive(message.data);
    worker.onerror = (event) => {
      this.lastProblem = `storage worker failed: ${event.message}`;
      this.failPending(this.lastProblem);
    };
  }

  private failPending(reason: string): void {
    for (const call of this.pending.values()) call.reject(new Error(reason));
    this.pending.clear();
    // Nothing will drain the backlog now; the records are durable in the WAL either way.
    this.releaseBacklogWaiters();
  }

  private releaseBacklogWaiters(): void {
    for (const release of this.backlogWaiters.splice(0)) release();
  }

  static start(
    dataDir: string,
    walDir: string,
    tuning: StorageTuning,
    onSealed: (position: WalPosition) => void,
    backlogBytesMax = workerBacklogBytesMax,
    segmentRowsLimit = segmentRowsMax,
  ): Promise<StorageClient> {
    const worker = new Worker(new URL("./storage-worker.ts", import.meta.url).href);
    return new Promise((resolve, reject) => {
      worker.onmessage = (message: MessageEvent<WorkerReply>) => {
        if (message.data.type === "opened") resolve(new StorageClient(worker, onSealed, backlogBytesMax, segmentRowsLimit));
        else if (message.data.type === "open-failed") {
          worker.terminate();
          reject(new Error(`storage worker could not open ${dataDir}: ${message.data.message}`));
        }
      };
      worker.onerror = (event) => reject(new Error(`storage worker failed to start: ${event.message}`));
      worker.postMessage({ type: "open", dataDir, walDir, tuning } satisfies WorkerRequest);
    });
  }

  private receive(reply: WorkerReply): void {
    if (reply.type === "added") {
      this.backlogBytes -= reply.bytes;
      if (this.withinLimits()) this.releaseBacklogWaiters();
    } else if (reply.type === "segments") {
      this.segmentRows = reply.rows;
      if (this.withinLimits()) this.releaseBacklogWaiters();
    } else if (reply.type === "sealed") this.onSealed(reply.position);
    else if (reply.type === "status") {
      this.lastProblem = reply.problem;
      if (this.withinLimits()) this.releaseBacklogWaiters();
    }
    else if (reply.type === "result") {
      const call = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (reply.error === null) call?.resolve(reply.value);
      else call?.reject(new Error(reply.error));
    }
  }

  /**
   * `head` and `body` are the parts of an encoded record already durable in the WAL, ending at
   * `position`. Their memory moves to the worker (a part that is a view into a larger buffer
   * is copied first, so no one else's bytes are taken away); the caller must not use them again.
   */
  add(head: Uint8Array, body: Uint8Array, position: WalPosition): void {
    const [ownHead, ownBody] = [head, body].map((part) =>
      part.byteOffset === 0 && part.byteLength === part.buffer.byteLength ? part : part.slice(),
    ) as [Uint8Array, Uint8Array];
    const transfer = [ownHead.buffer as ArrayBuffer];
    if (ownBody.buffer !== ownHead.buffer) transfer.push(ownBody.buffer as ArrayBuffer);
    this.backlogBytes += ownHead.byteLength + ownBody.byteLength;
    this.worker.postMessage({ type: "add", head: ownHead, body: ownBody, position } satisfies WorkerRequest, transfer);
  }

  /**
   * Whether callers may go on: the backlog is within its bound and so are the segments waiting
   * for compaction, unless compaction is failing (then waiting would only stall ingest; the
   * problem shows in /health and writes fail on their own when storage cannot take them).
   */
  private withinLimits(): boolean {
    if (this.stopped) return true;
    return this.backlogBytes <= this.backlogBytesMax && (this.segmentRows <= this.segmentRowsMax || this.lastProblem !== null);
  }

  /** Resolves once the worker's backlog and the segments waiting for compaction are within their bounds (at once when they are). */
  backlogWithinLimit(): Promise<void> {
    if (this.withinLimits()) return Promise.resolve();
    return new Promise((resolve) => this.backlogWaiters.push(resolve));
  }

  private ask<T>(request: WorkerRequest & { id: number }): Promise<T> {
    if (this.stopped) return Promise.reject(new Error("storage worker is stopped"));
    return new Promise((resolve, reject) => {
      this.pending.set(request.id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage(request);
    });
  }

  private call = (method: "seal" | "flush" | "stop") => this.ask<void>({ type: "call", id: this.nextCallId++, method });

  seal = () => this.call("seal");
  flush = () => this.call("flush");

  /** A person's events in one partition, newest first (see EventStore.personEvents). */
  personEvents(dataId: number, environment: string, personIndexes: number[], before: EventCursor | null, limit: number): Promise<StoredEvent[]> {
    return this.ask({ type: "person-events", id: this.nextCallId++, dataId, environment, personIndexes, before, limit });
  }

  /** The live files and unsealed rows of one partition, for a query (see EventStore.snapshot). */
  snapshot(dataId: number, environment: string): Promise<PartitionSnapshot> {
    return this.ask({ type: "snapshot", id: this.nextCallId++, dataId, environment });
  }

  /** Why background storage work is failing, or null. */
  problem(): string | null {
    return this.lastProblem;
  }

  /** Stops background work, seals what is buffered, and ends the worker (once; later calls wait for the same stop). */
  stop(): Promise<void> {
    if (!this.stopped) {
      const stopping = this.call("stop");
      this.stopped = stopping.finally(() => {
        this.worker.terminate();
        this.failPending("storage worker is stopped");
      });
      this.releaseBacklogWaiters();
    }
    return this.stopped;
  }
}
