// The event store's thread: buffering and sealing run here, and compaction is driven from here
// (its work runs on a thread of its own, compaction-thread.ts), so the thread that answers
// ingest requests only validates and appends to the WAL. Protocol: see storage-client.ts.
import { EventStore, type StorageTuning } from "./event-store.ts";
import { CompactionThread } from "./compaction-thread.ts";
import type { WalPosition } from "./wal.ts";
import { startHeapGuard, workerHeapBytesSoftMax } from "./heap-guard.ts";
import type { EventSubjects } from "./event-erasure.ts";

declare const self: Worker;

export type WorkerRequest =
  /** `replayUpTo`: replay the WAL only so far (a restart while ingest goes on; see EventStore.open). */
  | { type: "open"; dataDir: string; walDir: string; tuning: StorageTuning; replayUpTo?: WalPosition; compactionThreadName: string }
  | { type: "add"; head: Uint8Array; body: Uint8Array; position: WalPosition }
  | { type: "call"; id: number; method: "seal" | "flush" | "stop" }
  | { type: "snapshot"; id: number; dataId: number; environment: string }
  | { type: "erase"; id: number; subjects: EventSubjects; intentFile: string | null };

export type WorkerReply =
  /** `replayedThrough`: the last WAL record the store holds; records after it must be added. */
  | { type: "opened"; replayedThrough: WalPosition }
  | { type: "open-failed"; message: string }
  | { type: "sealed"; position: WalPosition }
  /** An added record is in the buffers; `bytes` is its size as it was handed over. */
  | { type: "added"; bytes: number }
  /** After a seal or compaction: the rows sealed in segments and not compacted yet. */
  | { type: "segments"; rows: number }
  | { type: "status"; problem: string | null }
  /** The answer to a call: `value` is what a read returns. */
  | { type: "result"; id: number; error: string | null; value?: unknown };

const heapGuard = startHeapGuard({ maxBytes: workerHeapBytesSoftMax });

let store: EventStore | null = null;
let reportedProblem: string | null = null;
const post = (reply: WorkerReply) => self.postMessage(reply);

function reportStatus(): void {
  const problem = store?.problem() ?? null;
  if (problem !== reportedProblem) {
    reportedProblem = problem;
    post({ type: "status", problem });
  }
}

self.onmessage = async (message: MessageEvent<WorkerRequest>) => {
  const request = message.data;
  if (request.type === "open") {
    const compactor = new CompactionThread(request.compactionThreadName);
    try {
      store = EventStore.open(request.dataDir, request.walDir, (position) => post({ type: "sealed", position }), request.tuning, compactor, request.replayUpTo);
      store.startBackground(reportStatus, (rows) => {
        post({ type: "segments", rows });
        heapGuard.check();
      });
      post({ type: "opened", replayedThrough: store.replayedThrough() });
    } catch (error) {
      compactor.close();
      post({ type: "open-failed", message: (error as Error).message });
    }
    return;
  }
  if (request.type === "add") {
    store!.addWalRecord(request.head, request.body, request.position);
    post({ type: "added", bytes: request.head.byteLength + request.body.byteLength });
    return;
  }
  if (request.type === "snapshot") {
    try {
      const value = store!.snapshot(request.dataId, request.environment);
      self.postMessage({ type: "result", id: request.id, error: null, value } satisfies WorkerReply, value.buffered ? [value.buffered.buffer as ArrayBuffer] : []);
    } catch (error) {
      post({ type: "result", id: request.id, error: (error as Error).message });
    }
    return;
  }
  if (request.type === "erase") {
    try {
      post({ type: "result", id: request.id, error: null, value: await store!.erase(request.subjects, request.intentFile) });
    } catch (error) {
      post({ type: "result", id: request.id, error: (error as Error).message });
    }
    reportStatus();
    return;
  }
  try {
    if (request.method === "seal") await store!.seal();
    else if (request.method === "flush") await store!.flush();
    else {
      await store!.stop();
      await store!.seal();
      store!.close();
    }
    post({ type: "result", id: request.id, error: null });
  } catch (error) {
    post({ type: "result", id: request.id, error: (error as Error).message });
  }
  reportStatus();
};
