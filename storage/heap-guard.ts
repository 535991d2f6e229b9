// JSC frees the memory of request bodies (handed to the storage worker after the WAL write)
// only in full collections, and under steady ingest those come late: measured, the request
// thread's heap grew from 240 to over 500 MB in 30 s at full load, and the process passed
// 1.3 GB of RSS. The storage worker's heap likewise reached 430 MB after merges. A full
// collection once a thread's heap passes a bound keeps it flat. The storage worker also checks
// after each seal and compaction: a merge leaves tens of MB of garbage at once, and between
// one-second checks its heap reached 480 MB (measured).
//
// The request thread's bound sits above where JavaScriptCore starts full collections of its own
// under npm start's heap sizing (about 290-350 MB here), which run concurrently with pauses of a
// few ms; a guard collection is synchronous (42 ms at 320 MB). Bun counts a few hundred bytes of
// "extra memory" per HTTP request that only a full collection releases, so at 5,000 flag
// requests/s the heap grew 2.2 MB/s with RSS flat, and a guard at 320 MB stalled the request
// thread for 42 ms about every 50 s. At 400 MB it no longer fires there; a full ingest load for
// 60 s peaked at 735-740 MiB RSS, as with 320 MB (741-778 MiB).
import { heapSize } from "bun:jsc";

export const heapCheckIntervalMs = 1000;
/** Request thread: about 190 MB above what it holds at rest (geo data, password list, uuid index). */
export const heapBytesSoftMax = 400 * 1024 * 1024;
/** Storage worker: above its buffers; compaction thread: above a merge of partRowsMax rows. */
export const workerHeapBytesSoftMax = 160 * 1024 * 1024;

export interface HeapGuardOptions {
  maxBytes: number;
  intervalMs: number;
  heapBytes: () => number;
  collect: () => void;
}

const defaults: HeapGuardOptions = {
  maxBytes: heapBytesSoftMax,
  intervalMs: heapCheckIntervalMs,
  heapBytes: heapSize,
  collect: () => Bun.gc(true),
};

export interface HeapGuard {
  /** Collects now if the heap is past its bound (after a step known to leave much garbage). */
  check(): void;
  stop(): void;
}

/** Checks the heap every `intervalMs` and collects fully when it is past `maxBytes`. */
export function startHeapGuard(options: Partial<HeapGuardOptions> = {}): HeapGuard {
  const { maxBytes, intervalMs, heapBytes, collect } = { ...defaults, ...options };
  const check = () => {
    if (heapBytes() > maxBytes) collect();
  };
  const timer = setInterval(check, intervalMs);
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}
