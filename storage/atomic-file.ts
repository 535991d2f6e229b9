// Files appear whole or not at all: write a temporary name, fsync it, rename over the final
// name, fsync the directory. A crash leaves at worst a `.tmp-*` file, which startup removes.
// Directories are made durable the same way: a file's fsync covers neither its own directory
// entry nor that of a directory just created for it (makeDirectories).
// The store's synchronous writes go through writeAll, which finishes writes the kernel cuts
// short (the WAL's group commit writes asynchronously and counts a short write as a failure).
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writevSync } from "node:fs";
import { open, rename } from "node:fs/promises";
import { dirname, join } from "node:path";

export const temporarySuffix = ".tmp-";

/** Buffers per writev call: Linux's IOV_MAX. */
export const writevBuffersMax = 1024;

/** What is left of `chunks` once their first `written` bytes are written. */
export function afterWritten(chunks: Uint8Array[], written: number): Uint8Array[] {
  let whole = 0;
  while (whole < chunks.length && written >= chunks[whole]!.byteLength) written -= chunks[whole++]!.byteLength;
  const rest = chunks.slice(whole);
  if (written > 0) rest[0] = rest[0]!.subarray(written);
  return rest;
}

/** Writes every byte of `chunks`, one after the other, at the file's current position. */
export function writeAll(fd: number, chunks: Uint8Array[]): void {
  let pending = chunks;
  while (pending.length > 0) pending = afterWritten(pending, writevSync(fd, pending.slice(0, writevBuffersMax)));
}

export function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates `dir` and its missing parents, syncing the parent of each one created, so that a
 * power loss cannot leave durable files in a directory whose own entry was lost.
 */
export function makeDirectories(dir: string): void {
  const first = mkdirSync(dir, { recursive: true });
  if (first === undefined) return;
  for (let created = dir; ; created = dirname(created)) {
    fsyncDirectory(dirname(created));
    if (created === first) return;
  }
}

export function writeFileAtomic(path: string, bytes: Uint8Array | string): void {
  makeDirectories(dirname(path));
  const temporary = `${path}${temporarySuffix}${process.pid}-${Math.random().toString(36).slice(2)}`;
  const fd = openSync(temporary, "w");
  try {
    writeAll(fd, [typeof bytes === "string" ? Buffer.from(bytes) : bytes]);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  fsyncDirectory(dirname(path));
}

/**
 * writeFileAtomic off the event loop: the write, its fsync and the directory's fsync run on the
 * thread pool, so a process that answers requests keeps answering while a large file is made durable.
 */
export async function writeFileAtomicAsync(path: string, bytes: Uint8Array): Promise<void> {
  makeDirectories(dirname(path));
  const temporary = `${path}${temporarySuffix}${process.pid}-${Math.random().toString(36).slice(2)}`;
  const handle = await open(temporary, "w");
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
  const directory = await open(dirname(path), "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/** Removes what a crash during writeFileAtomic left in `dir` (its files only, not below); no directory there, nothing to do. */
export function removeTemporaryFiles(dir: string): void {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return;
  for (const name of readdirSync(dir)) if (name.includes(temporarySuffix)) rmSync(join(dir, name));
}
