// Files appear whole or not at all: write a temporary name, fsync it, rename over the final
// name, fsync the directory. A crash leaves at worst a `.tmp-*` file, which startup removes.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export const temporarySuffix = ".tmp-";

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
    const data = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
    let written = 0;
    while (written < data.byteLength) written += writeSync(fd, data, written, data.byteLength - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  fsyncDirectory(dirname(path));
}
