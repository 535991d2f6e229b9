// Where compaction's work runs. In the service, on a thread of its own: sealing and
// compaction shared the storage worker, and at sustained full ingest that worker was runnable
// 95% of the time (compaction about a third of it) while the request thread sat idle a
// quarter of the time waiting for it (measured from /proc schedstat). On its own thread,
// compaction uses that idle CPU while the storage worker goes on sealing. Tests and tools
// that open a store directly compact in place.
import { compactPartition, type CompactionJob, type CompactionOutcome } from "./partition-compaction.ts";
import type { CompactionReply, CompactionRequest } from "./compaction-worker.ts";
import { PendingCalls } from "./pending-calls.ts";

export interface Compactor {
  run(job: CompactionJob): Promise<CompactionOutcome>;
  close(): void;
}

/** Compaction on the calling thread. */
export const compactInPlace: Compactor = {
  run: async (job) => compactPartition(job),
  close: () => {},
};

/** Compaction on a thread of its own (compaction-worker.ts). */
export class CompactionThread implements Compactor {
  private readonly worker: Worker;
  private readonly pending = new PendingCalls();

  /** `name`: the OS thread's name (see StorageClientOptions.threadLabel). */
  constructor(name = "compaction") {
    this.worker = new Worker(new URL("./compaction-worker.ts", import.meta.url).href, { name });
    this.worker.onmessage = ({ data: reply }: MessageEvent<CompactionReply>) => this.pending.settle(reply.id, reply.error, reply.outcome);
    this.worker.onerror = (event) => this.pending.failAll(`compaction thread failed: ${event.message}`);
  }

  run(job: CompactionJob): Promise<CompactionOutcome> {
    return this.pending.start((id) => this.worker.postMessage({ id, job } satisfies CompactionRequest));
  }

  close(): void {
    this.worker.terminate();
    this.pending.failAll("compaction thread is closed");
  }
}
