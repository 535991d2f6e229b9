import { afterEach, describe, expect, spyOn, test } from "bun:test";
import * as fsPromises from "node:fs/promises";
import { appendFileSync, copyFileSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  WalCorruptError, WalRecordTooLargeError, WalUnavailableError, WriteAheadLog, readWalRecords, walFileBytesMax, walRecordBytesMax,
} from "../../storage/wal.ts";
import { canMountTinyFs, fillDisk, tinyFsSkipReason, withTinyFs } from "../helpers/tiny-fs.ts";

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "wal-test-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }); });

const text = (value: string) => new TextEncoder().encode(value);
const payloads = (wal: WriteAheadLog, after?: { file: number; offset: number }) =>
  [...wal.records(after)].map((record) => new TextDecoder().decode(record.payload));

describe("write-ahead log", () => {
  test("appends resolve in order with increasing positions and replay after reopen", async () => {
    const dir = freshDir();
    const wal = await WriteAheadLog.open(dir);
    const positions = await Promise.all(Array.from({ length: 100 }, (_, i) => wal.append(text(`record ${i}`))));
    for (let i = 1; i < positions.length; i++) expect(positions[i]!.offset).toBeGreaterThan(positions[i - 1]!.offset);
    expect(positions[0]).toEqual({ file: 1, offset: 8 + "record 0".length });
    await wal.close();
    const reopened = await WriteAheadLog.open(dir);
    expect(payloads(reopened)).toEqual(Array.from({ length: 100 }, (_, i) => `record ${i}`));
    expect(payloads(reopened, positions[97])).toEqual(["record 98", "record 99"]);
    expect(reopened.head()).toEqual(positions[99]!);
    await reopened.close();
  });

  test("a record given as parts is one record of their bytes; more buffers than one writev takes are joined", async () => {
    const dir = freshDir();
    const wal = await WriteAheadLog.open(dir);
    // 700 concurrent two-part appends: one group commit of 2,100 buffers with the headers.
    const positions = await Promise.all(Array.from({ length: 700 }, (_, i) => wal.append([text(`head ${i}|`), text(`body ${i}`)])));
    expect(positions[0]).toEqual({ file: 1, offset: 8 + "head 0|body 0".length });
    await wal.close();
    const reopened = await WriteAheadLog.open(dir);
    expect(payloads(reopened)).toEqual(Array.from({ length: 700 }, (_, i) => `head ${i}|body ${i}`));
    await reopened.close();
  });

  const damagedTails: [string, Uint8Array][] = [
    ["a torn record at the end (crash mid-append)", new Uint8Array([50, 0, 0, 0, 1, 2, 3, 4, 65, 66])],
    ["a zero-filled tail (a file the file system extended but never wrote)", new Uint8Array(4096)],
  ];
  for (const [tail, bytes] of damagedTails) {
    test(`${tail} is cut off on open; earlier records survive and appends go on after them`, async () => {
      const dir = freshDir();
      const wal = await WriteAheadLog.open(dir);
      const end = await wal.append(text("kept"));
      await wal.close();
      const file = join(dir, "wal-0000000000000001.log");
      appendFileSync(file, bytes);
      const reopened = await WriteAheadLog.open(dir);
      expect(payloads(reopened)).toEqual(["kept"]);
      expect(statSync(file).size).toBe(end.offset);
      await reopened.append(text("after"));
      await reopened.close();
      const again = await WriteAheadLog.open(dir);
      expect(payloads(again)).toEqual(["kept", "after"]);
      await again.close();
    });
  }

  test("a broken log (a failed write it could not cut off) does not rotate on truncation, so a restart cuts the torn tail instead of refusing the log", async () => {
    const dir = freshDir();
    const wal = await WriteAheadLog.open(dir);
    const end = await wal.append(text("sealed"));
    // What a failed write leaves when cutting it off failed too: a torn tail, and the log broken.
    appendFileSync(join(dir, "wal-0000000000000001.log"), new Uint8Array([50, 0, 0, 0, 1, 2, 3, 4, 65]));
    (wal as unknown as { broken: Error }).broken = new Error("truncate failed");
    await wal.truncateUpTo(end);
    expect(readdirSync(dir)).toEqual(["wal-0000000000000001.log"]);
    await wal.close();
    const reopened = await WriteAheadLog.open(dir);
    expect(payloads(reopened)).toEqual(["sealed"]);
    await reopened.close();
  });

  test("appends queued behind a failed write that could not be cut off are refused, not written after its torn bytes", async () => {
    const dir = freshDir();
    const wal = await WriteAheadLog.open(dir);
    await wal.append(text("before"));
    // Its group commit over, so the next append starts a group of its own.
    await wal.settled();
    // Injected at the file layer: the next write is short (5 bytes reach the file, as on a full
    // disk), and cutting them off fails.
    const active = (wal as unknown as { handle: FileHandle }).handle;
    const writev = active.writev.bind(active);
    active.writev = (async (buffers: Uint8Array[]) => {
      active.writev = writev;
      await writev([Buffer.concat(buffers).subarray(0, 5)]);
      return { bytesWritten: 5, buffers };
    }) as FileHandle["writev"];
    active.truncate = () => Promise.reject(Object.assign(new Error("EIO: i/o error, ftruncate"), { code: "EIO" }));
    const outcome = (append: Promise<unknown>) => append.then(() => "acknowledged", (error: Error) => error.constructor.name);
    const failed = outcome(wal.append(text("torn")));
    // Queued while the torn write is under way, so append() has not seen the log broken yet.
    const queued = outcome(wal.append(text("queued")));
    const later = await Promise.all([failed, queued]);
    await wal.close();
    const reopened = await WriteAheadLog.open(dir);
    expect([later, payloads(reopened)]).toEqual([["WalUnavailableError", "WalUnavailableError"], ["before"]]);
    await reopened.close();
  });

  test("a rotation that fails after creating its file removes it: the file written on stays the newest, so a torn tail there is still cut", async () => {
    const dir = freshDir();
    const wal = await WriteAheadLog.open(dir);
    const first = await wal.append(text("first"));
    // Injected at the file layer: the directory cannot be opened to sync the new file's name.
    const realOpen = fsPromises.open;
    const open = spyOn(fsPromises, "open").mockImplementation((path, ...rest) =>
      path === dir ? Promise.reject(Object.assign(new Error("EMFILE: too many open files, open"), { code: "EMFILE" })) : realOpen(path, ...rest));
    try {
      await expect(wal.truncateUpTo(first)).rejects.toThrow("EMFILE");
    } finally {
      open.mockRestore();
    }
    const second = await wal.append(text("second"));
    await wal.close();
    const files = readdirSync(dir);
    // A crash during the next append to the file.
    appendFileSync(join(dir, "wal-0000000000000001.log"), new Uint8Array([50, 0, 0, 0, 1, 2, 3, 4, 65]));
    const reopened = await WriteAheadLog.open(dir);
    expect([files, second, payloads(reopened)]).toEqual([
      ["wal-0000000000000001.log"], { file: 1, offset: 2 * 8 + "first".length + "second".length }, ["first", "second"],
    ]);
    await reopened.close();
  });

  test("an empty record and one past walRecordBytesMax are refused; the log goes on", async () => {
    const dir = freshDir();
    const wal = await WriteAheadLog.open(dir);
    await expect(wal.append(new Uint8Array(0))).rejects.toThrow(new Error("a write-ahead log record cannot be empty"));
    const oversized = [new Uint8Array(walRecordBytesMax), new Uint8Array(1)];
    await expect(wal.append(oversized)).rejects.toThrow(new WalRecordTooLargeError(`record of ${walRecordBytesMax + 1} bytes exceeds ${walRecordBytesMax}`));
    await wal.append(new Uint8Array(walRecordBytesMax));
    await wal.append(text("after"));
    await wal.close();
    const reopened = await WriteAheadLog.open(dir);
    expect([...reopened.records()].map((record) => record.payload.byteLength)).toEqual([walRecordBytesMax, 5]);
    await reopened.close();
  });

  test("a record whose checksum does not match ends the valid log", async () => {
    const dir = freshDir();
    const wal = await WriteAheadLog.open(dir);
    await wal.append(text("one"));
    const second = await wal.append(text("two"));
    await wal.close();
    const file = join(dir, "wal-0000000000000001.log");
    const bytes = new Uint8Array(await Bun.file(file).arrayBuffer());
    bytes[second.offset - 1] = bytes[second.offset - 1]! ^ 0xff;
    writeFileSync(file, bytes);
    const reopened = await WriteAheadLog.open(dir);
    expect(payloads(reopened)).toEqual(["one"]);
    await reopened.close();
  });

  test("damage in an older file is corruption, not a torn tail: open refuses", async () => {
    const dir = freshDir();
    writeFileSync(join(dir, "wal-0000000000000001.log"), new Uint8Array([9, 0, 0, 0, 0, 0, 0, 0, 1]));
    writeFileSync(join(dir, "wal-0000000000000002.log"), new Uint8Array());
    expect(WriteAheadLog.open(dir)).rejects.toBeInstanceOf(WalCorruptError);
  });

  test("files rotate at the size limit and truncateUpTo drops only what is sealed", async () => {
    const dir = freshDir();
    const wal = await WriteAheadLog.open(dir);
    const big = new Uint8Array(walFileBytesMax / 4);
    const ends = [];
    for (let i = 0; i < 6; i++) ends.push(await wal.append(big));
    expect(ends.map((end) => end.file)).toEqual([1, 1, 1, 2, 2, 2]);
    await wal.truncateUpTo(ends[2]!);
    expect(readdirSync(dir).sort()).toEqual(["wal-0000000000000002.log"]);
    expect([...wal.records()].length).toBe(3);
    await wal.truncateUpTo(ends[5]!);
    expect(readdirSync(dir).sort()).toEqual(["wal-0000000000000003.log"]);
    expect([...wal.records()].length).toBe(0);
    await wal.append(text("next"));
    expect(payloads(wal)).toEqual(["next"]);
    await wal.close();
  });

  test.skipIf(!canMountTinyFs)(`a rotation that cannot create the next file leaves writing in the current one, and a later rotation succeeds (${tinyFsSkipReason})`, async () => {
    await withTinyFs(1024, async (dir) => {
      const walDir = join(dir, "wal");
      const wal = await WriteAheadLog.open(walDir);
      const first = await wal.append(text("first"));
      // Take every file the filesystem has left: the next log file cannot be created.
      const ballast: string[] = [];
      const noSpace = (() => {
        for (;;) {
          const path = join(dir, `ballast-${ballast.length}`);
          try {
            writeFileSync(path, "");
          } catch (error) {
            return (error as NodeJS.ErrnoException).code;
          }
          ballast.push(path);
        }
      })();
      expect(noSpace).toBe("ENOSPC");
      expect(await wal.truncateUpTo(first).then(() => "rotated", (error: NodeJS.ErrnoException) => error.code)).toBe("ENOSPC");
      const second = await wal.append(text("second"));
      expect([second, wal.unavailableReason(), readdirSync(walDir)]).toEqual([{ file: 1, offset: first.offset + 8 + "second".length }, null, ["wal-0000000000000001.log"]]);

      rmSync(ballast.pop()!);
      await wal.truncateUpTo(second);
      const third = await wal.append(text("third"));
      expect([third, payloads(wal), readdirSync(walDir)]).toEqual([{ file: 2, offset: 8 + "third".length }, ["third"], ["wal-0000000000000002.log"]]);
      await wal.close();
    }, 64);
  });

  test("a rotation whose previous file fails to close goes on in the new file: that file's records were synced already", async () => {
    const dir = freshDir();
    const wal = await WriteAheadLog.open(dir);
    const first = await wal.append(text("first"));
    // The failure is injected at the file layer: the active file's handle refuses to close.
    const active = (wal as unknown as { handle: FileHandle }).handle;
    const close = active.close.bind(active);
    active.close = () => Promise.reject(Object.assign(new Error("EIO: i/o error, close"), { code: "EIO" }));
    try {
      await wal.truncateUpTo(first);
      const second = await wal.append(text("second"));
      expect([second, wal.unavailableReason(), readdirSync(dir), payloads(wal)]).toEqual([
        { file: 2, offset: 8 + "second".length }, null, ["wal-0000000000000002.log"], ["second"],
      ]);
    } finally {
      await close();
      await wal.close();
    }
  });

  test("reading the log skips a file dropped after the listing (it held only sealed records)", async () => {
    const dir = freshDir();
    const wal = await WriteAheadLog.open(dir);
    await wal.append(text("in file 1"));
    await wal.close();
    copyFileSync(join(dir, "wal-0000000000000001.log"), join(dir, "wal-0000000000000002.log"));
    const reading = readWalRecords(dir);
    expect(reading.next().value).toEqual({ payload: text("in file 1"), position: { file: 1, offset: 8 + "in file 1".length } });
    rmSync(join(dir, "wal-0000000000000002.log"));
    expect([...reading]).toEqual([]);
  });

  test("settled() waits for the appends made before it, and for the code awaiting them, not for later ones", async () => {
    const wal = await WriteAheadLog.open(freshDir());
    await wal.settled();
    const steps: string[] = [];
    const first = wal.append(text("first")).then(() => steps.push("first answered"));
    const settled = wal.settled().then(() => steps.push("settled"));
    const later = wal.append(text("later")).then(() => steps.push("later answered"));
    await Promise.all([first, settled, later]);
    expect(steps[0]).toBe("first answered");
    expect(steps.slice(1).sort()).toEqual(["later answered", "settled"]);
    await wal.close();
  });

  test("appends racing a truncation that rotates the active file all succeed", async () => {
    const wal = await WriteAheadLog.open(freshDir());
    for (let round = 0; round < 20; round++) {
      const before = Array.from({ length: 10 }, (_, i) => wal.append(text(`r${round}-${i}`)));
      await Promise.all(before);
      const truncating = wal.truncateUpTo(wal.head());
      const during = Array.from({ length: 10 }, (_, i) => wal.append(text(`d${round}-${i}`)));
      await Promise.all([truncating, ...during]);
    }
    expect(wal.unavailableReason()).toBeNull();
    expect(payloads(wal).length).toBeGreaterThanOrEqual(10);
    await wal.close();
  });

  test("companions are synced with the group commits that follow their changes; one that does not exist yet is skipped", async () => {
    const dir = freshDir();
    const companionPath = join(dir, "companion.sqlite-wal");
    let version = 0;
    let asked = 0;
    const wal = await WriteAheadLog.open(join(dir, "wal"), [{ path: companionPath, changes: () => (asked++, version) }]);
    await wal.append(text("before the companion exists"));
    writeFileSync(companionPath, "journal");
    version = 1;
    await wal.append(text("after it changed"));
    await wal.append(text("unchanged since"));
    expect(asked).toBe(3);
    expect(payloads(wal)).toEqual(["before the companion exists", "after it changed", "unchanged since"]);
    await wal.close();
  });

  test("leftovers of an interrupted drop are removed on open", async () => {
    const dir = freshDir();
    writeFileSync(join(dir, "wal-0000000000000001.log.dropped"), "x");
    const wal = await WriteAheadLog.open(dir);
    expect(readdirSync(dir)).toEqual(["wal-0000000000000001.log"]);
    await wal.close();
  });

  test.skipIf(!canMountTinyFs)(`a full disk rejects the append, leaves no partial record, and recovers when space returns (${tinyFsSkipReason})`, async () => {
    await withTinyFs(256, async (dir) => {
      const wal = await WriteAheadLog.open(join(dir, "wal"));
      const kept = await wal.append(new Uint8Array(64 * 1024));
      expect(fillDisk(join(dir, "ballast"))).toBeGreaterThan(0);
      const failed = wal.append(new Uint8Array(64 * 1024));
      expect(failed).rejects.toBeInstanceOf(WalUnavailableError);
      await failed.catch(() => {});
      const file = join(dir, "wal", "wal-0000000000000001.log");
      expect(statSync(file).size).toBe(kept.offset);
      truncateSync(join(dir, "ballast"), 0);
      const after = await wal.append(text("fits again"));
      expect(after.offset).toBe(kept.offset + 8 + "fits again".length);
      await wal.close();
      const reopened = await WriteAheadLog.open(join(dir, "wal"));
      expect([...reopened.records()].length).toBe(2);
      await reopened.close();
    });
  });
});
