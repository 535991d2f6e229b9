// CPU per event of each kind of thread in a benchmarked server. A server's rate is bounded by
// its total CPU on the machine's cores, and also by its busiest single thread: a thread that
// spends 3 us per event cannot pass about 333,000 events/s, however idle the others are. The
// groups go by the OS thread names Bun and JavaScriptCore give their threads, and those the
// service gives its storage threads (StorageClientOptions.threadLabel).
import { threadsMs } from "../process-usage.ts";

export const threadGroups = ["main", "storage worker", "compaction thread", "GC helpers", "JIT", "I/O pool", "other"] as const;
export type ThreadGroup = (typeof threadGroups)[number];
export type CpuByThread = Record<ThreadGroup, number>;

const groupPatterns: [RegExp, ThreadGroup][] = [
  [/^main$/, "main"],
  [/^storage\b/, "storage worker"],
  [/^compaction\b/, "compaction thread"],
  [/^HeapHelper/, "GC helpers"],
  [/^(JITWorker|JSCWarmUp)/, "JIT"],
  [/^Bun Pool/, "I/O pool"],
];

export function threadGroupOf(threadName: string): ThreadGroup {
  return groupPatterns.find(([pattern]) => pattern.test(threadName))?.[1] ?? "other";
}

/** Starts measuring a process; the returned function gives each group's CPU in us per event since. */
export function cpuByThreadMeter(pid: number): (events: number) => CpuByThread {
  const before = threadsMs(pid);
  return (events) => {
    const perEvent = Object.fromEntries(threadGroups.map((group) => [group, 0])) as CpuByThread;
    for (const [name, ms] of threadsMs(pid)) {
      perEvent[threadGroupOf(name)] += ((ms - (before.get(name) ?? 0)) * 1000) / events;
    }
    return perEvent;
  };
}
