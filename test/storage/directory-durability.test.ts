// Every file and directory storage creates has its directory entry synced, from an empty data
// directory through ingest, a seal and compaction (store-lifecycle.ts), read from the system
// calls it makes (test/helpers/directory-syncs.ts).
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { temporarySuffix } from "../../storage/atomic-file.ts";
import { droppedSuffix } from "../../storage/wal.ts";
import { unsyncedEntries } from "../helpers/directory-syncs.ts";

const dirs: string[] = [];
afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }); });

test("a region's storage syncs the directory of every entry it makes: directories, the WAL, the manifest, segments, parts", () => {
  const root = mkdtempSync(join(tmpdir(), "dir-sync-"));
  dirs.push(root);
  // A temporary file's name, or that of a WAL file being dropped, may be lost: a restart removes both.
  const { unsynced, created } = unsyncedEntries(join(import.meta.dir, "store-lifecycle.ts"), [root], root, [temporarySuffix, droppedSuffix]);
  const relative = (path: string) => path.slice(root.length + 1).replace(/\d{4}-\d{2}-\d{2}/, "DAY").replace(/\d+/g, "N");
  // What it made, so the check covers these (new days' directories included).
  expect(new Set(created.map(({ path }) => relative(path)))).toEqual(new Set([
    "eu", "eu/wal", "eu/wal/wal-N.log", "eu/manifest.log", "eu/segments", "eu/segments/seal-N.arrows",
    "eu/parquet", "eu/parquet/N", "eu/parquet/N/production", "eu/parquet/N/production/DAY", "eu/parquet/N/production/DAY/part-N.parquet",
  ]));
  expect(unsynced).toEqual([]);
});

test("makeDirectories syncs the parent of each directory it makes, and makes nothing when all exist", async () => {
  const root = mkdtempSync(join(tmpdir(), "dir-sync-"));
  dirs.push(root);
  const script = join(root, "make.ts");
  await Bun.write(script, `import { makeDirectories } from ${JSON.stringify(join(import.meta.dir, "../../storage/atomic-file.ts"))};\nmakeDirectories(process.argv[2]);\nmakeDirectories(process.argv[2]);\n`);
  const target = join(root, "a", "b", "c");
  const { unsynced, created } = unsyncedEntries(script, [target], root, []);
  expect(created.map(({ path }) => path)).toEqual([join(root, "a"), join(root, "a", "b"), target]);
  expect(unsynced).toEqual([]);
});
