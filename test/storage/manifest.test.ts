// The manifest log: changes survive a restart, a change torn by a crash is cut off, a
// checkpoint replaces the log without losing or repeating a change (even when a crash comes
// between the two), and a manifest written before the log existed still opens.
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ManifestCorruptError, ManifestLog, emptyManifest, manifestFileName, manifestLogFileName, readManifest, type PartEntry, type SegmentEntry,
} from "../../storage/manifest.ts";

const dirs: string[] = [];
const logs: ManifestLog[] = [];
afterEach(() => {
  for (const log of logs.splice(0)) log.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function newDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "manifest-test-"));
  dirs.push(dir);
  return dir;
}

function open(dir: string, logBytesMax?: number): ManifestLog {
  const log = ManifestLog.open(dir, logBytesMax);
  logs.push(log);
  return log;
}

const segment = (file: string, offset: number): SegmentEntry => ({
  file, offset, bytes: 100, projectId: "p", dataId: 1, environment: "production", rows: 10, sealedAt: 1_000,
});
const part = (file: string, level = 0): PartEntry => ({
  file, projectId: "p", dataId: 1, environment: "production", day: "2026-11-20", level, rows: 10, bytes: 500, arrowBytes: 4_000,
});

/** A seal of two segments, then a compaction of one of them into a part. */
function sealAndCompact(log: ManifestLog): void {
  const seal = log.takeFileNumber();
  log.commit({
    walSealedThrough: { file: 1, offset: 400 },
    addSegments: [segment(`segments/seal-${seal}.arrows`, 0), segment(`segments/seal-${seal}.arrows`, 100)],
  });
  const partNumber = log.takeFileNumber();
  log.commit({
    dropSegments: [{ file: `segments/seal-${seal}.arrows`, offset: 0 }],
    addParts: [part(`parquet/part-${partNumber}.parquet`)],
  });
}

/** Commits until a checkpoint has just emptied the log (its bound is small). */
function commitUntilCheckpoint(log: ManifestLog, dir: string): void {
  do log.commit({ walSealedThrough: { file: 2, offset: log.manifest.walSealedThrough.offset + 1 } });
  while (statSync(join(dir, manifestLogFileName)).size > 0);
}

describe("manifest log", () => {
  test("a new region starts empty; committed changes are the manifest, now and after a restart", () => {
    const dir = newDir();
    const log = open(dir);
    expect(log.manifest).toEqual(emptyManifest());
    sealAndCompact(log);
    const expected = {
      walSealedThrough: { file: 1, offset: 400 },
      nextFileNumber: 3,
      segments: [segment("segments/seal-1.arrows", 100)],
      parts: [part("parquet/part-2.parquet")],
    };
    expect(log.manifest).toEqual(expected);
    expect(readManifest(dir)).toEqual(expected);
    expect(open(dir).manifest).toEqual(expected);
    // No checkpoint yet: the changes are in the log only.
    expect(existsSync(join(dir, manifestFileName))).toBe(false);
  });

  // Half a record, whose header promises more bytes than follow; or zeros, a tail the file
  // system extended but never wrote.
  const tornRecord = new Uint8Array(20);
  new DataView(tornRecord.buffer).setUint32(0, 500, true);
  const damagedTails: [string, Uint8Array][] = [["a change torn by a crash", tornRecord], ["a zero-filled tail", new Uint8Array(4096)]];
  for (const [tail, bytes] of damagedTails) {
    test(`${tail} is cut off at open; the changes before it stand`, () => {
      const dir = newDir();
      const log = open(dir);
      sealAndCompact(log);
      const before = structuredClone(log.manifest);
      const whole = statSync(join(dir, manifestLogFileName)).size;
      appendFileSync(join(dir, manifestLogFileName), bytes);
      expect(readManifest(dir)).toEqual(before);
      const reopened = open(dir);
      expect(reopened.manifest).toEqual(before);
      expect(statSync(join(dir, manifestLogFileName)).size).toBe(whole);
      // The log goes on from there.
      reopened.commit({ dropParts: ["parquet/part-2.parquet"] });
      expect(open(dir).manifest.parts).toEqual([]);
    });
  }

  test("a record whose checksum does not match ends the log", () => {
    const dir = newDir();
    const log = open(dir);
    sealAndCompact(log);
    const bytes = readFileSync(join(dir, manifestLogFileName));
    // Flip a byte inside the second record's payload.
    bytes[bytes.length - 3]! ^= 0xff;
    writeFileSync(join(dir, manifestLogFileName), bytes);
    expect(readManifest(dir)).toEqual({
      walSealedThrough: { file: 1, offset: 400 },
      nextFileNumber: 2,
      segments: [segment("segments/seal-1.arrows", 0), segment("segments/seal-1.arrows", 100)],
      parts: [],
    });
  });

  test("a damaged record before intact changes stops the open instead of cutting them off, so the files they name are not removed", () => {
    const dir = newDir();
    const log = open(dir);
    sealAndCompact(log);
    // A third change after the two: the damage is in the first, the second and third are intact.
    log.commit({ walSealedThrough: { file: 1, offset: 900 } });
    log.close();
    logs.splice(logs.indexOf(log), 1);
    const bytes = readFileSync(join(dir, manifestLogFileName));
    const firstLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true);
    // A byte of the first record's payload.
    bytes[8 + Math.floor(firstLength / 2)]! ^= 0xff;
    writeFileSync(join(dir, manifestLogFileName), bytes);
    const message =
      `${join(dir, manifestLogFileName)} is damaged at byte 0 of ${bytes.length}, before intact changes (up to change 3). ` +
      "The store does not open on it: the files those changes name would be deleted. Restore the file from a backup, " +
      "or move it away to start from the last checkpoint (files named only since then are then removed)";
    expect(() => readManifest(dir)).toThrow(new ManifestCorruptError(message));
    expect(() => ManifestLog.open(dir)).toThrow(new ManifestCorruptError(message));
    // Nothing was cut off.
    expect(new Uint8Array(readFileSync(join(dir, manifestLogFileName)))).toEqual(new Uint8Array(bytes));
  });

  for (const changeSinceCheckpoint of [false, true]) {
    const outcome = changeSinceCheckpoint ? "followed by a change it does not, stops the open" : "is cut off with them, and the store opens";
    test(`a damaged record among changes the checkpoint already holds ${outcome}`, () => {
      const dir = newDir();
      const log = open(dir, 1_000);
      sealAndCompact(log);
      const logBefore = readFileSync(join(dir, manifestLogFileName));
      commitUntilCheckpoint(log, dir);
      if (changeSinceCheckpoint) log.commit({ walSealedThrough: { file: 9, offset: 1 } });
      const expected = structuredClone(log.manifest);
      // The log as a crash between the checkpoint and emptying the log leaves it, its first change damaged.
      const damaged = Buffer.concat([logBefore, readFileSync(join(dir, manifestLogFileName))]);
      damaged[10]! ^= 0xff;
      writeFileSync(join(dir, manifestLogFileName), damaged);
      if (changeSinceCheckpoint) {
        expect(() => readManifest(dir)).toThrow(ManifestCorruptError);
        return;
      }
      expect(readManifest(dir)).toEqual(expected);
      expect(open(dir).manifest).toEqual(expected);
    });
  }

  test("past its size bound the log becomes a checkpoint and starts again", () => {
    const dir = newDir();
    const log = open(dir, 1_000);
    for (let round = 0; round < 5; round++) sealAndCompact(log);
    expect(existsSync(join(dir, manifestFileName))).toBe(true);
    expect(statSync(join(dir, manifestLogFileName)).size).toBeLessThan(1_000);
    const expected = structuredClone(log.manifest);
    expect(expected.segments).toHaveLength(5);
    expect(expected.parts).toHaveLength(5);
    expect(readManifest(dir)).toEqual(expected);
    expect(open(dir).manifest).toEqual(expected);
  });

  test("a crash between writing the checkpoint and emptying the log repeats no change", () => {
    const dir = newDir();
    const log = open(dir, 1_000);
    sealAndCompact(log);
    const logBefore = readFileSync(join(dir, manifestLogFileName));
    // Enough changes to pass the bound: the checkpoint includes them all and the log is emptied.
    for (let round = 0; round < 4; round++) sealAndCompact(log);
    const expected = structuredClone(log.manifest);
    // Put back what the log held before, as if emptying it had not happened: its changes are
    // in the checkpoint already, so replaying them again would duplicate entries.
    writeFileSync(join(dir, manifestLogFileName), Buffer.concat([logBefore, readFileSync(join(dir, manifestLogFileName))]));
    expect(readManifest(dir)).toEqual(expected);
  });

  test("a checkpoint whose last sync fails still leaves the log empty for a later failed commit to be cut back to", () => {
    const dir = newDir();
    const log = open(dir, 1_000);
    // Injected at the file layer: the sync after emptying the log for a checkpoint fails once.
    const realTruncate = fs.ftruncateSync;
    const realSync = fs.fdatasyncSync;
    let failNextSync = false;
    const truncate = spyOn(fs, "ftruncateSync").mockImplementation((fd, length) => {
      realTruncate(fd, length);
      if (length === 0) failNextSync = true;
    });
    const sync = spyOn(fs, "fdatasyncSync").mockImplementation((fd) => {
      if (!failNextSync) return realSync(fd);
      failNextSync = false;
      throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
    });
    const report = spyOn(console, "error").mockImplementation(() => {});
    try {
      while (report.mock.calls.length === 0) sealAndCompact(log);
      truncate.mockRestore();
      const before = structuredClone(log.manifest);
      const logBytes = statSync(join(dir, manifestLogFileName)).size;
      // The next commit's own sync fails; its rollback (a cut and a sync) works.
      failNextSync = true;
      expect(() => log.commit({ dropParts: [before.parts[0]!.file] })).toThrow("EIO: i/o error, fdatasync");
      expect([statSync(join(dir, manifestLogFileName)).size, log.manifest, readManifest(dir)]).toEqual([logBytes, before, before]);
    } finally {
      truncate.mockRestore();
      sync.mockRestore();
      report.mockRestore();
    }
  });

  test("a failed commit changes nothing and is thrown", () => {
    const dir = newDir();
    const log = open(dir);
    sealAndCompact(log);
    const before = structuredClone(log.manifest);
    log.close();
    logs.splice(logs.indexOf(log), 1);
    expect(() => log.commit({ dropParts: ["parquet/part-2.parquet"] })).toThrow();
    expect(log.manifest).toEqual({ ...before });
    expect(readManifest(dir)).toEqual(before);
  });

  test("a manifest.json of version 3 (before the log) opens as a checkpoint", () => {
    const dir = newDir();
    const old = { version: 3, walSealedThrough: { file: 2, offset: 80 }, nextFileNumber: 7, segments: [segment("segments/seal-5.arrows", 0)], parts: [part("parquet/part-6.parquet")] };
    writeFileSync(join(dir, manifestFileName), JSON.stringify(old));
    const { version: _, ...manifest } = old;
    expect(readManifest(dir)).toEqual(manifest);
    const log = open(dir);
    expect(log.manifest).toEqual(manifest);
    log.commit({ addParts: [part("parquet/part-7.parquet", 1)], dropParts: ["parquet/part-6.parquet"] });
    expect(open(dir).manifest.parts).toEqual([part("parquet/part-7.parquet", 1)]);
    writeFileSync(join(dir, manifestFileName), JSON.stringify({ ...old, version: 2 }));
    expect(() => readManifest(dir)).toThrow("manifest version 2 is not one of 3, 4");
  });
  test("parts named before parts recorded their Arrow bytes (in a checkpoint or in the log) read as 0 bytes", () => {
    const dir = newDir();
    const { arrowBytes: _, ...older } = part("parquet/part-6.parquet");
    const checkpoint = { version: 4, lastChange: 0, walSealedThrough: { file: 2, offset: 80 }, nextFileNumber: 9, segments: [], parts: [older] };
    writeFileSync(join(dir, manifestFileName), JSON.stringify(checkpoint));
    const { arrowBytes: __, ...logged } = part("parquet/part-7.parquet", 1);
    const log = open(dir);
    log.commit({ addParts: [logged as PartEntry] });
    log.close();
    logs.pop();
    expect(readManifest(dir).parts).toEqual([{ ...older, arrowBytes: 0 }, { ...logged, arrowBytes: 0 }]);
  });
});
