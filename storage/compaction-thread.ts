// Where compaction's work runs. In the service, on a thread of its own: sealing and
// compaction shared the storage worker, and at sustained full ingest that worker was runnable
// 95% of the time (compaction about a third of it) while the request thread sat idle a
// quarter of the time waiting for it (measured from /proc schedstat). On its own thread,
// compaction uses that idle CPU while the storage worker goes on sealing. Tests and tools
// that open a store directly compact in place.
import { compactPartition, type CompactionJob, type CompactionOutcome } from "./partition-compaction.ts";
import type { CompactionReply, CompactionRequest } from "./compaction-worker.ts";

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
  private readonly worker = new Worker(new URL("./compaction-worker.ts", import.meta.url).href);
  private readonly pending = new Map<number, { resolve: (outcome: CompactionOutcome) => void; reject: (error: Error) => void }>();
  private nextId = 1;

  constructor() {
    this.worker.onmessage = (message: MessageEvent<CompactionReply>) => {
      const reply = message.data;
      const call = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (reply.error === null) call?.resolve(reply.outcome);
      else call?.reject(new Error(reply.error));
    };
    this.worker.onerror = (event) => this.failPending(`compaction thread failed: ${event.message}`);
  }

  private failPending(reason: string): void {
    for (const call of this.pending.values()) call.reject(new Error(reason));
    this.pending.clear();
  }

  run(job: CompactionJob): Promise<CompactionOutcome> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, job } satisfies CompactionRequest);
    });
  }

  close(): void {
    this.worker.terminate();
    this.failPending("compaction thread is closed");
  }
}
