// Seal files: each table is written as a complete Arrow IPC stream at the range returned for
// it, whatever the number of chunks the writer produced.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableToIPC } from "apache-arrow";
import { readSegmentTable, writeSealFile } from "../../storage/data-files.ts";
import { eventsToTable } from "../../storage/event-buffer.ts";
import { tableToEvents } from "../../storage/event-columns.ts";
import { storedEvent } from "./fixtures.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function newDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "data-files-test-"));
  dirs.push(dir);
  return dir;
}

describe("writeSealFile", () => {
  test("writes each table as one IPC stream at its range, readable on its own", () => {
    const first = Array.from({ length: 3 }, (_, i) => storedEvent({ distinct_id: `user-${i}`, properties: { plan: "pro", seats: i } }));
    // Past writev's 1,024 buffers per call: hundreds of property columns, each several chunks.
    const wide = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`key_${i}`, i % 2 === 0 ? `value ${i}` : i]));
    const second = [storedEvent({ event: "signed_up", properties: wide, groups: { company: "acme" } })];
    const tables = [eventsToTable(first), eventsToTable(second)];
    const path = join(newDir(), "seal-00000001.arrows");

    const ranges = writeSealFile(path, tables);

    const streams = tables.map((table) => tableToIPC(table, "stream"));
    expect(ranges).toEqual([
      { offset: 0, bytes: streams[0]!.byteLength },
      { offset: streams[0]!.byteLength, bytes: streams[1]!.byteLength },
    ]);
    expect(new Uint8Array(readFileSync(path))).toEqual(new Uint8Array(Buffer.concat(streams)));
    expect(tableToEvents(readSegmentTable(path, ranges[0]!))).toEqual(first);
    expect(tableToEvents(readSegmentTable(path, ranges[1]!))).toEqual(second);
  });
});
