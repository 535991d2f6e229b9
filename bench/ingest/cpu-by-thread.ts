// CPU per event of each kind of thread in a benchmarked server. A server's rate is bounded by
// its total CPU on the machine's cores, and also by its busiest single thread: a thread that
// spends 3 us per event saturates at about 333,000 events/s, however idle the others are. The
// groups go by the OS thread names Bun and JavaScriptCore give their threads, and those the
// service gives its storage threads (StorageClientOptions.threadLabel).
import { processMs, threadsUsage } from "../process-usage.ts";

export const threadGroups = ["main", "storage worker", "compaction thread", "GC", "JIT", "I/O pool", "other", "exited"] as const;
export type ThreadGroup = (typeof threadGroups)[number];
export type CpuByThread = Record<ThreadGroup, number>;
/** The groups that are one thread each in the service: each bounds the rate by itself. */
export const singleThreadGroups = ["main", "storage worker", "compaction thread"] as const satisfies readonly ThreadGroup[];

const groupPatterns: [RegExp, ThreadGroup][] = [
  [/^main$/, "main"],
  [/^storage\b/, "storage worker"],
  [/^compaction\b/, "compaction thread"],
  // JSCWarmUp does collector work: its CPU follows allocation, not compilation, and with the
  // JIT off it is gone and HeapHelper takes its share (measured). "ollector Thread" is the
  // heap collector thread's name cut to Linux's 15 bytes.
  [/^(HeapHelper|JSCWarmUp)|ollector Thread$/, "GC"],
  [/^JITWorker/, "JIT"],
  [/^Bun Pool/, "I/O pool"],
];

/** The group of a live thread by its name ("exited" is for threads gone by the end of a measurement). */
export function threadGroupOf(threadName: string): ThreadGroup {
  return groupPatterns.find(([pattern]) => pattern.test(threadName))?.[1] ?? "other";
}

/** The process's CPU per event over all its threads (the groups add up to it, "exited" included). */
export const totalMicros = (cpuByThread: CpuByThread) => threadGroups.reduce((sum, group) => sum + cpuByThread[group], 0);

/**
 * Starts measuring a process; the returned function gives each group's CPU in us per event
 * since. Threads that ended meanwhile took their own counts with them: what they used is the
 * process's total less its live threads', reported as "exited".
 */
export function cpuByThreadMeter(pid: number): (events: number) => CpuByThread {
  const before = threadsUsage(pid);
  const processBefore = processMs(pid);
  return (events) => {
    const ms = Object.fromEntries(threadGroups.map((group) => [group, 0])) as CpuByThread;
    let liveMs = 0;
    for (const [tid, { name, ms: used }] of threadsUsage(pid)) {
      const since = used - (before.get(tid)?.ms ?? 0);
      ms[threadGroupOf(name)] += since;
      liveMs += since;
    }
    ms.exited = Math.max(0, processMs(pid) - processBefore - liveMs);
    return Object.fromEntries(threadGroups.map((group) => [group, (ms[group] * 1000) / events])) as CpuByThread;
  };
}
