import { expect, test } from "bun:test";
import { threadGroupOf, threadGroups } from "../../bench/ingest/cpu-by-thread.ts";

test("threads are grouped by the names Bun, JavaScriptCore and the storage give them", () => {
  const names = [
    "main", "storage eu", "storage", "compaction pk", "compaction", "HeapHelper", "JSCWarmUp", "ollector Thread", "JITWorker",
    "Bun Pool 0", "Bun Pool 11", "HTTP Client", "mi-scavenger", "storagex",
  ];
  expect(Object.fromEntries(names.map((name) => [name, threadGroupOf(name)]))).toEqual({
    main: "main",
    "storage eu": "storage worker",
    storage: "storage worker",
    "compaction pk": "compaction thread",
    compaction: "compaction thread",
    HeapHelper: "GC",
    JSCWarmUp: "GC",
    "ollector Thread": "GC",
    JITWorker: "JIT",
    "Bun Pool 0": "I/O pool",
    "Bun Pool 11": "I/O pool",
    "HTTP Client": "other",
    "mi-scavenger": "other",
    storagex: "other",
  });
});

/** The meter's reading (per 1,000 events, so us per event read as ms) for a scenario of cpu-by-thread-probe.ts. */
async function probe(scenario: "running" | "exiting", busyMs: number, beforeMs: number): Promise<Record<string, number>> {
  const child = Bun.spawn([process.execPath, new URL("./cpu-by-thread-probe.ts", import.meta.url).pathname, scenario, String(busyMs), String(beforeMs)], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(child.stdout).text();
  expect(await child.exited).toBe(0);
  return JSON.parse(out);
}

// /proc counts CPU in 10 ms steps: a thread's count can read up to one step more than it used.
const stepMs = 10;

test("the meter charges only what a thread used since it started to the thread's group, per event", async () => {
  const busyMs = 60;
  // The thread uses as much before the meter starts: not charged.
  const perEvent = await probe("running", busyMs, busyMs);
  expect(Object.keys(perEvent)).toEqual([...threadGroups]);
  // 60 ms over 1,000 events is 60 us per event.
  expect(perEvent["compaction thread"]).toBeGreaterThanOrEqual(busyMs);
  expect(perEvent["compaction thread"]).toBeLessThanOrEqual(busyMs + 2 * stepMs);
});

test("a thread that ends during the measurement is charged to exited, only for what it used since", async () => {
  const busyMs = 60;
  // Used before the meter starts: not charged, so a meter that charged an exited thread's whole
  // count would report at least this much more.
  const beforeMs = 300;
  const perEvent = await probe("exiting", busyMs, beforeMs);
  expect(perEvent.exited).toBeGreaterThanOrEqual(busyMs - stepMs);
  // Ending a worker costs its thread CPU too (tearing its VM down: 0 to 30 ms seen here), and
  // that is rightly charged to exited as well.
  const teardownMs = 100;
  expect(perEvent.exited).toBeLessThanOrEqual(busyMs + teardownMs + 2 * stepMs);
  // None of the exiting thread's use lands in `other`: had it, `other` would hold at least what
  // `exited` is shown to hold (busyMs - stepMs). The process's own threads (GC, JIT) run during
  // the window too, so a bound of one step would measure that noise rather than the attribution.
  expect(perEvent.other).toBeLessThan(busyMs - stepMs);
});
