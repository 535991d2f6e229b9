// A process a bench starts on its own, so its CPU and memory are its own: a service as
// `npm start` runs it (its JavaScriptCore RAM setting) or a baseline with Bun's defaults,
// optionally with a fresh data directory (BENCH_DATA_DIR) that is removed once it stops.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnService } from "../test/helpers/process.ts";

export interface BenchProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export interface BenchProcessOptions {
  env?: Record<string, string>;
  /** Names a fresh temporary data directory, passed as BENCH_DATA_DIR and removed on stop. */
  dataDirPrefix?: string;
  /** Bun flags before the entry (a CPU profile). */
  flags?: string[];
}

/** Starts `entry` (a path) and resolves once it listens. */
export async function startBenchProcess(entry: string, runtime: "npm start" | "plain", options: BenchProcessOptions = {}): Promise<BenchProcess> {
  const dataDir = options.dataDirPrefix === undefined ? null : mkdtempSync(join(tmpdir(), options.dataDirPrefix));
  const env = { ...options.env, ...(dataDir === null ? {} : { BENCH_DATA_DIR: dataDir }) };
  const service = await spawnService(env, [...(options.flags ?? []), entry], runtime);
  return {
    url: service.url,
    pid: service.child.pid,
    async stop() {
      service.child.kill("SIGTERM");
      await service.child.exited;
      if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
