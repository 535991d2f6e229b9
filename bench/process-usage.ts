// What a benchmarked process uses, from /proc: its resident memory, and CPU time during a
// measurement (the server's, the driver's, and everything else's on the machine). The driver and
// the server share two cores with whatever else runs, so a run's latencies mean little without
// knowing how busy the machine was.
import { readdirSync, readFileSync } from "node:fs";

/** Resident memory of a process (0 when /proc reports none, as for a process that has exited but not been reaped). */
export function rssBytes(pid: number): number {
  const match = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return match ? Number(match[1]) * 1024 : 0;
}

/** How often a peak-RSS sampler reads /proc. */
const rssSampleMs = 250;

export interface RssPeak {
  /** The highest RSS read since the sampler started or last restarted. */
  bytes(): number;
  /** Starts a new peak from the RSS now (a soak's next minute). */
  restart(): void;
  stop(): void;
}

/** Samples a process's RSS from now on, every 250 ms, keeping the highest reading. */
export function sampleRssPeak(pid: number): RssPeak {
  let peakBytes = rssBytes(pid);
  const timer = setInterval(() => (peakBytes = Math.max(peakBytes, rssBytes(pid))), rssSampleMs);
  return {
    bytes: () => peakBytes,
    restart: () => {
      peakBytes = rssBytes(pid);
    },
    stop: () => clearInterval(timer),
  };
}

/** Linux reports CPU time in clock ticks of 1/100 s (USER_HZ). */
const tickMs = 10;

/** Busy time of all cores together: every /proc/stat column but idle and iowait. */
function machineBusyMs(): number {
  const columns = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already counted in user).
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = columns;
  return (user + nice + system + irq + softirq + steal) * tickMs;
}

/** User plus system time of a /proc stat line's process or thread, in ms. */
export function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of /proc/<pid>/stat (utime, stime); the split starts at field 3.
  return (Number(fields[11]) + Number(fields[12])) * tickMs;
}

/** User and system time of a process, all its threads, in ms (10 ms steps). */
export function processMs(pid: number): number {
  return statCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

export interface ThreadUsage {
  /** The OS thread name; "main" for the thread that runs the process's JavaScript (its id is the pid). */
  name: string;
  /** User and system time in ms (10 ms steps). */
  ms: number;
}

/**
 * Each live thread of a process by thread id. Several threads can share a name (JavaScriptCore's
 * helpers, a replaced worker), and threads come and go, so a measurement subtracts per thread id.
 */
export function threadsUsage(pid: number): Map<number, ThreadUsage> {
  const threads = new Map<number, ThreadUsage>();
  for (const tid of readdirSync(`/proc/${pid}/task`).map(Number)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch (error) {
      // The thread exited between the listing and the read.
      if (["ENOENT", "ESRCH"].includes((error as NodeJS.ErrnoException).code ?? "")) continue;
      throw error;
    }
    const name = tid === pid ? "main" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    threads.set(tid, { name, ms: statCpuMs(stat) });
  }
  return threads;
}

export interface CpuShares {
  /** Cores' worth of CPU (1 = one core busy the whole time). */
  server: number;
  driver: number;
  /** Every other process on the machine. */
  others: number;
}

/** Starts measuring; the returned function gives the shares since. */
export function cpuMeter(serverPid: number): () => CpuShares {
  const startedAt = performance.now();
  const machine = machineBusyMs();
  const server = processMs(serverPid);
  const driver = processMs(process.pid);
  return () => {
    const wallMs = performance.now() - startedAt;
    const serverMs = processMs(serverPid) - server;
    const driverMs = processMs(process.pid) - driver;
    const othersMs = Math.max(0, machineBusyMs() - machine - serverMs - driverMs);
    return { server: serverMs / wallMs, driver: driverMs / wallMs, others: othersMs / wallMs };
  };
}
