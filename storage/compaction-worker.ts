// The compaction thread: runs compactPartition for the storage worker, one job at a time, and
// sends back the new parts' bytes (transferred, not copied). Protocol: compaction-thread.ts.
import { compactPartition, type CompactionJob, type CompactionOutcome } from "./partition-compaction.ts";
import { startHeapGuard, workerHeapBytesSoftMax } from "./heap-guard.ts";

declare const self: Worker;

const heapGuard = startHeapGuard({ maxBytes: workerHeapBytesSoftMax });

export interface CompactionRequest {
  id: number;
  job: CompactionJob;
}

export type CompactionReply = { id: number; outcome: CompactionOutcome; error: null } | { id: number; outcome: null; error: string };

self.onmessage = (message: MessageEvent<CompactionRequest>) => {
  const { id, job } = message.data;
  try {
    const outcome = compactPartition(job);
    self.postMessage({ id, outcome, error: null } satisfies CompactionReply, outcome.written.map((part) => part.parquet.buffer as ArrayBuffer));
  } catch (error) {
    self.postMessage({ id, outcome: null, error: (error as Error).message } satisfies CompactionReply);
  }
  // A merge leaves tens of MB of garbage at once (heap-guard.ts).
  heapGuard.check();
};
