// Decode workers for Parquet parts (decode-worker.ts): a queue of part reads that the workers
// take in order, and that the main thread may take back to run itself: the read it is about to
// need when no worker has started it, or the last queued one while it waits for a worker (so
// it decodes too instead of idling). Workers are started on first use, hold the process open
// only while they have work, and end with close().
import type { Decoded } from "../columns.ts";
import type { Footer } from "../parquet/footer.ts";
import { ParquetUnsupportedError } from "../parquet/unsupported.ts";

export interface DecodeRequest {
  id: number;
  path: string;
  footer: Footer;
  names: string[];
}

export type DecodeReply = { id: number; columns: [string, Decoded][] } | { id: number; error: { name: string; message: string } };

/**
 * Reads posted to one worker at a time: a second one waits in the worker's queue so it starts
 * the moment the first ends, even while the main thread is busy decoding and cannot answer.
 */
const workerReadsMax = 2;

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
  state: "queued" | "running" | "settled" = "queued";
  readonly result: Promise<Map<string, Decoded>>;
  private settle!: { resolve: (columns: Map<string, Decoded>) => void; reject: (error: Error) => void };

  /** `runHere`: runs the read on the calling thread instead, settling the task (for a task taken back). */
  constructor(readonly request: DecodeRequest, readonly runHere: (task: DecodeTask) => Promise<void>) {
    this.result = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // A read-ahead nobody ends up waiting for must not be an unhandled rejection.
    this.result.catch(() => {});
  }

  resolve(columns: Map<string, Decoded>): void {
    this.state = "settled";
    this.settle.resolve(columns);
  }

  reject(error: Error): void {
    this.state = "settled";
    this.settle.reject(error);
  }
}

interface PoolWorker {
  worker: Worker;
  running: Map<number, DecodeTask>;
}

export class DecodePool {
  private readonly workers: PoolWorker[] = [];
  private readonly queue: DecodeTask[] = [];
  private nextId = 0;
  private closed = false;

  /** `workerCount` decode workers beside the main thread (at least 1). */
  constructor(readonly workerCount: number) {
    if (workerCount < 1) throw new Error("a decode pool needs at least one worker");
  }

  /** Queues a read of a part's columns; `runHere` is how the main thread runs it if it takes it back. */
  submit(path: string, footer: Footer, names: string[], runHere: (task: DecodeTask) => Promise<void>): DecodeTask {
    if (this.closed) throw new Error("the decode pool is closed");
    const task = new DecodeTask({ id: ++this.nextId, path, footer, names }, runHere);
    this.queue.push(task);
    this.dispatch();
    return task;
  }

  /** Takes a task back from the queue if no worker has started it (the caller then runs it). */
  takeBack(task: DecodeTask): boolean {
    const index = this.queue.indexOf(task);
    if (index < 0) return false;
    this.queue.splice(index, 1);
    return true;
  }

  /** Takes the last queued task, the one workers would reach last, for the caller to run. */
  takeLast(): DecodeTask | null {
    return this.queue.pop() ?? null;
  }

  /** Reads workers have posted and not answered. */
  get running(): number {
    return this.workers.reduce((sum, entry) => sum + entry.running.size, 0);
  }

  /** Ends every worker; reads under way or queued fail. */
  async close(): Promise<void> {
    this.closed = true;
    const closedError = () => new Error("the decode pool was closed");
    for (const task of this.queue.splice(0)) task.reject(closedError());
    await Promise.all(this.workers.splice(0).map(async ({ worker, running }) => {
      const ended = new Promise<void>((resolve) => worker.addEventListener("close", () => resolve()));
      worker.terminate();
      await ended;
      for (const task of running.values()) task.reject(closedError());
    }));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const entry = this.freeWorker();
      if (entry === null) return;
      const task = this.queue.shift()!;
      task.state = "running";
      entry.running.set(task.request.id, task);
      if (entry.running.size === 1) entry.worker.ref();
      entry.worker.postMessage(task.request);
    }
  }

  /** The least busy worker with room for another read, starting one if fewer than `workerCount` run. */
  private freeWorker(): PoolWorker | null {
    let best: PoolWorker | null = null;
    for (const entry of this.workers) if (entry.running.size < workerReadsMax && (best === null || entry.running.size < best.running.size)) best = entry;
    if (best !== null && best.running.size === 0) return best;
    if (this.workers.length < this.workerCount) return this.startWorker();
    return best;
  }

  private startWorker(): PoolWorker {
    const worker = new Worker(new URL("./decode-worker.ts", import.meta.url).href, { name: "query decode" });
    const entry: PoolWorker = { worker, running: new Map() };
    worker.onmessage = (message: MessageEvent<DecodeReply>) => {
      const reply = message.data;
      const task = entry.running.get(reply.id);
      if (!task) return;
      entry.running.delete(reply.id);
      if (entry.running.size === 0) worker.unref();
      if ("error" in reply) task.reject(raisedAgain(reply.error));
      else task.resolve(new Map(reply.columns));
      this.dispatch();
    };
    worker.onerror = (event) => {
      // An uncaught error ends the worker: its reads fail, and the next read starts a new one.
      const failure = new Error(`a decode worker failed: ${event.message}`);
      for (const task of entry.running.values()) task.reject(failure);
      entry.running.clear();
      this.workers.splice(this.workers.indexOf(entry), 1);
      worker.terminate();
      this.dispatch();
    };
    this.workers.push(entry);
    return entry;
  }
}
