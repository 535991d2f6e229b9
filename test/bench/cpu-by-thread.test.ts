import { expect, test } from "bun:test";
import { cpuByThreadMeter, threadGroupOf, threadGroups } from "../../bench/ingest/cpu-by-thread.ts";

test("threads are grouped by the names Bun, JavaScriptCore and the storage give them", () => {
  const names = ["main", "storage eu", "storage", "compaction pk", "compaction", "HeapHelper", "JITWorker", "JSCWarmUp", "Bun Pool 0", "Bun Pool 11", "HTTP Client", "mi-scavenger", "storagex"];
  expect(Object.fromEntries(names.map((name) => [name, threadGroupOf(name)]))).toEqual({
    main: "main",
    "storage eu": "storage worker",
    storage: "storage worker",
    "compaction pk": "compaction thread",
    compaction: "compaction thread",
    HeapHelper: "GC helpers",
    JITWorker: "JIT",
    JSCWarmUp: "JIT",
    "Bun Pool 0": "I/O pool",
    "Bun Pool 11": "I/O pool",
    "HTTP Client": "other",
    "mi-scavenger": "other",
    storagex: "other",
  });
});

test("the meter charges a thread's CPU since it started to the thread's group, per event", async () => {
  const worker = new Worker(new URL("./busy-thread.ts", import.meta.url).href, { name: "storage meter" });
  try {
    // The worker's thread exists and has its name once it answers.
    worker.postMessage(0);
    await new Promise((resolve) => (worker.onmessage = resolve));
    const since = cpuByThreadMeter(process.pid);
    const busyMs = 60;
    worker.postMessage(busyMs);
    await new Promise((resolve) => (worker.onmessage = resolve));
    const perEvent = since(1000);
    expect(Object.keys(perEvent)).toEqual([...threadGroups]);
    // 60 ms over 1,000 events is 60 us per event; /proc counts in 10 ms steps, and the
    // thread's wake-up and reply may add a step.
    expect(perEvent["storage worker"]).toBeGreaterThanOrEqual(busyMs);
    expect(perEvent["storage worker"]).toBeLessThanOrEqual(busyMs + 20);
  } finally {
    worker.terminate();
  }
});
