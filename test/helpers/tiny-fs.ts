// A genuinely small filesystem (tmpfs), to see how storage behaves when the disk is full.
// Mounting needs root, which CI and this project's machines have; elsewhere the tests that
// need it are skipped with this reason.
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const canMountTinyFs = process.getuid?.() === 0 && process.platform === "linux";
export const tinyFsSkipReason = "mounting a tmpfs needs root on Linux";

/** Runs `work` in a tmpfs of `sizeKiB`, holding at most `inodes` files and directories when given. */
export async function withTinyFs<T>(sizeKiB: number, work: (dir: string) => Promise<T>, inodes?: number): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "tinyfs-"));
  const options = inodes === undefined ? `size=${sizeKiB}k` : `size=${sizeKiB}k,nr_inodes=${inodes}`;
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", options, "tmpfs", dir]);
  if (mount.exitCode !== 0) throw new Error(`mount failed: ${mount.stderr.toString()}`);
  try {
    return await work(dir);
  } finally {
    Bun.spawnSync(["umount", "-l", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes `path` in 4 KiB steps until the filesystem is full (ENOSPC); returns the bytes written. */
export function fillDisk(path: string): number {
  const fd = openSync(path, "w");
  const chunk = new Uint8Array(4096);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  return written;
}
