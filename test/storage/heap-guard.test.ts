import { expect, test } from "bun:test";
import { startHeapGuard } from "../../storage/heap-guard.ts";

test("the heap guard collects only while the heap is past its bound", async () => {
  const sizes = [100, 101, 99, 500, 100];
  const seen: number[] = [];
  let collections = 0;
  let done: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const stop = startHeapGuard({
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
  stop();
  expect({ seen, collections }).toEqual({ seen: sizes, collections: 2 });
});
