// Which new directory entries a program left without syncing their directory, read from the
// system calls it made (strace). A file's fsync makes its bytes durable but not its name in
// the directory, and the same goes for a directory just made: after a power loss, a file whose
// entry was never synced can be gone although its bytes were. This checks what no crash test
// can (a killed process leaves the page cache, and every entry with it).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ensureDebianPackage } from "./debian-package.ts";

const stracePath = "/usr/bin/strace";

/** A new entry in a directory, and the system call that made it. */
export interface NewEntry {
  path: string;
  call: string;
}

// strace -f lines: "<tid> <call>(<args>) = <result>". A call during which another thread made
// one is split in two: "<tid> <call>(<args> <unfinished ...>" and later
// "<tid> <... call resumed><rest of args>) = <result>"; joinSplitCalls puts the halves together.
const callLine = /^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)/;
const unfinishedLine = /^(\d+)\s+(.*) <unfinished \.\.\.>$/;
const resumedLine = /^(\d+)\s+<\.\.\. \w+ resumed>(.*)$/;

function joinSplitCalls(lines: string[]): string[] {
  const unfinished = new Map<string, string>();
  const joined: string[] = [];
  for (const line of lines) {
    const start = line.match(unfinishedLine);
    if (start) {
      unfinished.set(start[1]!, start[2]!);
      continue;
    }
    const end = line.match(resumedLine);
    if (end && unfinished.has(end[1]!)) {
      joined.push(`${end[1]} ${unfinished.get(end[1]!)}${end[2]}`);
      unfinished.delete(end[1]!);
      continue;
    }
    joined.push(line);
  }
  return joined;
}

const quoted = /"((?:[^"\\]|\\.)*)"/g;

function quotedArguments(args: string): string[] {
  return [...args.matchAll(quoted)].map((match) => match[1]!);
}

/**
 * Runs `bun script ...args` under strace and returns every entry it created under `root`
 * (directories made, files created, rename targets; but not names holding one of
 * `temporaryMarkers`, whose loss a restart handles anyway) whose directory
 * was not fsynced (or fdatasynced) after the entry was made; also every entry seen, so a test
 * can check that the program did what it should have.
 */
export function unsyncedEntries(script: string, args: string[], root: string, temporaryMarkers: string[]): { unsynced: NewEntry[]; created: NewEntry[] } {
  ensureDebianPackage("strace", stracePath, "The directory durability tests");
  const traceDir = mkdtempSync(join(tmpdir(), "strace-"));
  const traceFile = join(traceDir, "calls");
  let lines: string[];
  try {
    const run = Bun.spawnSync(
      [stracePath, "-f", "-qq", "-s", "4096", "-o", traceFile, "-e", "trace=mkdir,mkdirat,open,openat,rename,renameat,renameat2,fsync,fdatasync,close", process.execPath, script, ...args],
      { stdout: "pipe", stderr: "pipe" },
    );
    if (run.exitCode !== 0) throw new Error(`${script} failed under strace (exit ${run.exitCode}):\n${run.stderr.toString().slice(-3000)}`);
    lines = joinSplitCalls(readFileSync(traceFile, "utf8").split("\n"));
  } finally {
    rmSync(traceDir, { recursive: true, force: true });
  }

  const openFiles = new Map<number, string>();
  const pending: NewEntry[] = [];
  const created: NewEntry[] = [];
  const made = (path: string, call: string) => {
    if (!path.startsWith(`${root}/`) || temporaryMarkers.some((marker) => path.includes(marker))) return;
    created.push({ path, call });
    pending.push({ path, call });
  };
  for (const line of lines) {
    const match = line.match(callLine);
    if (!match) continue;
    const [, , call, args, resultText] = match;
    const result = Number(resultText);
    if (result < 0) continue;
    const paths = quotedArguments(args!);
    if (call === "mkdir" || call === "mkdirat") made(paths[0]!, call);
    else if (call === "open" || call === "openat") {
      openFiles.set(result, paths[0]!);
      if (args!.includes("O_CREAT")) made(paths[0]!, call);
    } else if (call!.startsWith("rename")) made(paths[1]!, call!);
    else if (call === "close") openFiles.delete(Number(args));
    else if (call === "fsync" || call === "fdatasync") {
      const synced = openFiles.get(Number(args));
      if (synced === undefined) continue;
      for (let index = pending.length - 1; index >= 0; index--) if (dirname(pending[index]!.path) === synced) pending.splice(index, 1);
    }
  }
  return { unsynced: pending, created };
}
