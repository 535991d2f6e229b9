import { expect, test } from "bun:test";
import { startHeapGuard } from "../../storage/heap-guard.ts";

test("the heap guard collects only while the heap is past its bound", async () => {
  const sizes = [100, 101, 99, 500, 100];
  const seen: number[] = [];
  let collections = 0;
  let done: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const guard = startHeapGuard({
    maxBytes: 100,
    intervalMs: 1,
    heapBytes: () => {
      const size = sizes[seen.length]!;
      seen.push(size);
      if (seen.length === sizes.length) done();
      return size;
    },
    collect: () => collections++,
  });
  await finished;
  guard.stop();
  expect({ seen, collections }).toEqual({ seen: sizes, collections: 2 });
});

test("a check on demand collects at once when the heap is past its bound, and only then", () => {
  let size = 50;
  let collections = 0;
  const guard = startHeapGuard({ maxBytes: 100, intervalMs: 60_000, heapBytes: () => size, collect: () => collections++ });
  guard.check();
  size = 150;
  guard.check();
  guard.stop();
  expect(collections).toBe(1);
});
