// writeAll's bookkeeping: a write the kernel cut short resumes at the right byte.
import { describe, expect, test } from "bun:test";
import { afterWritten } from "../../storage/atomic-file.ts";

describe("afterWritten", () => {
  const chunks = () => [Uint8Array.of(1, 2, 3), Uint8Array.of(4, 5), Uint8Array.of(6, 7, 8, 9)];

  test("nothing written leaves every chunk", () => {
    expect(afterWritten(chunks(), 0)).toEqual(chunks());
  });

  test("a write ending inside a chunk leaves that chunk's rest and the chunks after it", () => {
    expect(afterWritten(chunks(), 1)).toEqual([Uint8Array.of(2, 3), Uint8Array.of(4, 5), Uint8Array.of(6, 7, 8, 9)]);
    expect(afterWritten(chunks(), 4)).toEqual([Uint8Array.of(5), Uint8Array.of(6, 7, 8, 9)]);
  });

  test("a write ending on a chunk boundary leaves the whole chunks after it", () => {
    expect(afterWritten(chunks(), 3)).toEqual([Uint8Array.of(4, 5), Uint8Array.of(6, 7, 8, 9)]);
    expect(afterWritten(chunks(), 5)).toEqual([Uint8Array.of(6, 7, 8, 9)]);
  });

  test("everything written leaves nothing", () => {
    expect(afterWritten(chunks(), 9)).toEqual([]);
  });
});
