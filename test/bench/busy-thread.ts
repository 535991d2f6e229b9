// A worker for cpu-by-thread.test.ts: spins until its own thread has used `message.data` ms of
// CPU by /proc's count, then says so.
import { readFileSync } from "node:fs";

declare const self: Worker;

const threadCpuMs = () => {
  const stat = readFileSync("/proc/thread-self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

self.onmessage = ({ data: cpuMs }: MessageEvent<number>) => {
  const until = threadCpuMs() + cpuMs;
  while (threadCpuMs() < until);
  self.postMessage("done");
};
