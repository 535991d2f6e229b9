// Decode workers for Parquet parts (decode-worker.ts). A read is posted to a worker as soon as
// it is submitted (workers take their reads in order, never idle waiting for the main thread
// to hand them the next), and the main thread may claim any read no worker has started
// (claims.ts): the one it is about to need, or the last one queued while it waits for a worker,
// so it decodes too instead of idling. Workers start with the pool, hold the process open only
// while they have reads, and end with close().
import type { Decoded } from "../columns.ts";
import type { Footer } from "../parquet/footer.ts";
import { ParquetUnsupportedError } from "../parquet/unsupported.ts";
import { claim, claimedByMain, newClaims, resetClaim } from "./claims.ts";

export interface DecodeRequest {
  type: "read";
  id: number;
  path: string;
  footer: Footer;
  names: string[];
}

export type WorkerMessage = DecodeRequest | { type: "claims"; claims: Int32Array };

export type DecodeReply = { id: number; columns: [string, Decoded][] } | { id: number; error: { name: string; message: string } };

/** Errors a worker's failure is raised again as, by class name (any other: Error, with the name kept). */
const errorClasses: Record<string, new (message: string) => Error> = {
  ParquetUnsupportedError, TypeError, RangeError, SyntaxError, Error,
};

function raisedAgain(error: { name: string; message: string }): Error {
  const known = errorClasses[error.name];
  if (known) return new known(error.message);
  const raised = new Error(error.message);
  raised.name = error.name;
  return raised;
}

export class DecodeTask {
  settled = false;
  readonly result: Promise<Map<string, Decoded>>;
  private settle!: { resolve: (columns: Map<string, Decoded>) => void; reject: (error: Error) => void };

  /** `runHere`: runs the read on the calling thread instead, settling the task (for a task claimed back). */
  constructor(readonly request: DecodeRequest, readonly runHere: (task: DecodeTask) => Promise<void>) {
    this.result = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // A read-ahead nobody ends up waiting for must not be an unhandled rejection.
    this.result.catch(() => {});
  }

  resolve(columns: Map<string, Decoded>): void {
    this.settled = true;
    this.settle.resolve(columns);
  }

  reject(error: Error): void {
    this.settled = true;
    this.settle.reject(error);
  }
}

interface PoolWorker {
  worker: Worker;
  /** Reads posted to it that neither it has answered nor the main thread claimed. */
  reads: Map<number, DecodeTask>;
}

export class DecodePool {
  private readonly workers: PoolWorker[] = [];
  private readonly claims = newClaims();
  private nextId = 0;
  private closed = false;
  /** Reads workers have answered (columns or an error), against reads the main thread claimed and ran. */
  readonly counts = { byWorkers: 0, byMain: 0 };

  /**
   * `workerCount` decode workers beside the main thread (at least 1), started now: a worker
   * takes tens of milliseconds to load its modules, which the first cold query should not wait for.
   */
  constructor(readonly workerCount: number) {
    if (workerCount < 1) throw new Error("a decode pool needs at least one worker");
    while (this.workers.length < workerCount) this.startWorker();
  }

  /** Posts a read of a part's columns to the least busy worker; `runHere` is how the main thread runs it if it claims it. */
  submit(path: string, footer: Footer, names: string[], runHere: (task: DecodeTask) => Promise<void>): DecodeTask {
    if (this.closed) throw new Error("the decode pool is closed");
    const task = new DecodeTask({ type: "read", id: ++this.nextId, path, footer, names }, runHere);
    if (this.workers.length < this.workerCount) this.startWorker();
    const entry = this.workers.reduce((best, candidate) => (candidate.reads.size < best.reads.size ? candidate : best));
    resetClaim(this.claims, task.request.id);
    if (entry.reads.size === 0) entry.worker.ref();
    entry.reads.set(task.request.id, task);
    entry.worker.postMessage(task.request satisfies WorkerMessage);
    return task;
  }

  /** Claims a read for the caller to run if no worker has started it (the worker will skip it). */
  takeBack(task: DecodeTask): boolean {
    if (task.settled || !claim(this.claims, task.request.id, claimedByMain)) return false;
    for (const entry of this.workers) if (entry.reads.delete(task.request.id)) this.unrefIfIdle(entry);
    this.counts.byMain++;
    return true;
  }

  /** Claims the most recently posted read no worker has started (the one they would reach last), for the caller to run. */
  takeLast(): DecodeTask | null {
    const posted = this.workers.flatMap((entry) => [...entry.reads.values()]).sort((a, b) => b.request.id - a.request.id);
    return posted.find((task) => this.takeBack(task)) ?? null;
  }

  /** Ends every worker; reads not yet answered fail. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.splice(0).map(async ({ worker, reads }) => {
      const ended = new Promise<void>((resolve) => worker.addEventListener("close", () => resolve()));
      // An idle worker is unref'd: ref it, or the process may exit before its close event, and
      // whatever awaits close() (the service's stop, which closes the databases next) never runs.
      worker.ref();
      worker.terminate();
      await ended;
      for (const task of reads.values()) task.reject(new Error("the decode pool was closed"));
    }));
  }

  private unrefIfIdle(entry: PoolWorker): void {
    if (entry.reads.size === 0) entry.worker.unref();
  }

  private startWorker(): PoolWorker {
    const worker = new Worker(new URL("./decode-worker.ts", import.meta.url).href, { name: "query decode" });
    const entry: PoolWorker = { worker, reads: new Map() };
    worker.postMessage({ type: "claims", claims: this.claims } satisfies WorkerMessage);
    worker.onmessage = (message: MessageEvent<DecodeReply>) => {
      const reply = message.data;
      const task = entry.reads.get(reply.id);
      if (!task) return;
      entry.reads.delete(reply.id);
      this.unrefIfIdle(entry);
      this.counts.byWorkers++;
      if ("error" in reply) task.reject(raisedAgain(reply.error));
      else task.resolve(new Map(reply.columns));
    };
    worker.onerror = (event) => {
      // An uncaught error ends the worker: its reads fail, and the next submit starts a new one.
      const failure = new Error(`a decode worker failed: ${event.message}`);
      for (const task of entry.reads.values()) task.reject(failure);
      entry.reads.clear();
      this.workers.splice(this.workers.indexOf(entry), 1);
      worker.terminate();
    };
    // Idle workers do not hold the process open (submit refs a worker while it has reads).
    worker.unref();
    this.workers.push(entry);
    return entry;
  }
}
