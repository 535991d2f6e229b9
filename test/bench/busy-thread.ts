// A worker for cpu-by-thread.test.ts: spins until its own thread has used `message.data` ms of
// CPU by /proc's count, then says so.
import { readFileSync } from "node:fs";
import { statCpuMs } from "../../bench/process-usage.ts";

declare const self: Worker;

const threadCpuMs = () => statCpuMs(readFileSync("/proc/thread-self/stat", "utf8"));

self.onmessage = ({ data: cpuMs }: MessageEvent<number>) => {
  const until = threadCpuMs() + cpuMs;
  while (threadCpuMs() < until);
  self.postMessage("done");
};
