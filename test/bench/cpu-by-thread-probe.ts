// Runs one cpu-by-thread.test.ts scenario in a fresh process and prints the meter's reading as
// JSON. In the test process the suite's earlier files leave threads that end or run during the
// measurement (servers' workers, I/O pool threads); a fresh process holds only this scenario's.
import { cpuByThreadMeter } from "../../bench/ingest/cpu-by-thread.ts";

const [scenario, busyMs, beforeMs] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];

/** A worker thread named `name` that has run (so it has its name) and burns `ms` of CPU when told. */
async function busyThread(name: string) {
  const worker = new Worker(new URL("./busy-thread.ts", import.meta.url).href, { name });
  const burn = (ms: number) => {
    const done = new Promise((resolve) => (worker.onmessage = resolve));
    worker.postMessage(ms);
    return done;
  };
  /** Ends the thread and waits until it is gone. */
  const end = () => {
    const closed = new Promise((resolve) => worker.addEventListener("close", resolve));
    worker.terminate();
    return closed;
  };
  await burn(0);
  return { burn, end };
}

const { burn, end } = await busyThread(scenario === "exiting" ? "exiting meter" : "compaction meter");
await burn(beforeMs);
const since = cpuByThreadMeter(process.pid);
await burn(busyMs);
if (scenario === "exiting") await end();
const perEvent = since(1000);
if (scenario !== "exiting") await end();
console.log(JSON.stringify(perEvent));
