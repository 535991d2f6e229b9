// Files appear whole or not at all: write a temporary name, fsync it, rename over the final
// name, fsync the directory. A crash leaves at worst a `.tmp-*` file, which startup removes.
// The store's synchronous writes go through writeAll, which finishes writes the kernel cuts
// short (the WAL's group commit writes asynchronously and counts a short write as a failure).
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writevSync } from "node:fs";
import { dirname } from "node:path";

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

export function writeFileAtomic(path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
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
