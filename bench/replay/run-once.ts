// One run of bench/replay: the durable floor, then the service, under the same load from the same
// recordings (fresh session ids each time); then the service's catch-up (compacting what its log
// still held). Bytes on disk per recorded minute are measured once, apart (storage.ts).
import { join } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnService } from "../../test/helpers/process.ts";
import { removeIngestService, startIngestService } from "../ingest/service.ts";
import { cpuMeter, type CpuShares } from "../process-usage.ts";
import { driveReplays, type ReplayLoadResult } from "./load.ts";
import type { Recording } from "./recording.ts";
import type { StoredReplays } from "./stored.ts";
import { ReplayTraffic } from "./traffic.ts";

export interface BenchSize {
  seed: number;
  /** Seconds of load on each server. */
  seconds: number;
  senders: number;
  chunksPerRequest: number;
  /** Projects the load's chunks are spread over (each chunk counts against its project's ingest rate). */
  projects: number;
  /** Seeded visits of the typical page: replayed under fresh session ids by the load, stored once each by the storage measure. */
  visits: number;
}

export interface LoadFigures {
  load: ReplayLoadResult;
  /** Cores' worth of CPU during the load: the server, the driver, everything else on the machine. */
  cpu: CpuShares;
}

export interface ServiceFigures extends LoadFigures {
  /** Time and CPU, after the load, to compact what the replay log still held. */
  catchUpSeconds: number;
  catchUpCpuSeconds: number;
  /** Acknowledged chunks over the load's time plus the catch-up's: every chunk durable and in a block. */
  sustainedChunksPerSecond: number;
  stored: StoredReplays;
}

export interface RunFigures {
  floor: LoadFigures;
  service: ServiceFigures;
}

async function measureFloor(recordings: Recording[], size: BenchSize): Promise<LoadFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-replay-floor-"));
  const server = await spawnService({ DATA_DIR: dataDir }, ["bench/ingest/durable-floor-server.ts"], "plain");
  try {
    const cpu = cpuMeter(server.child.pid);
    const load = await driveReplays({ url: `${server.url}/r`, apiKeys: ["none"], traffic: new ReplayTraffic(recordings), seconds: size.seconds, senders: size.senders, chunksPerRequest: size.chunksPerRequest });
    return { load, cpu: cpu() };
  } finally {
    server.child.kill("SIGKILL");
    await server.child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measureService(recordings: Recording[], size: BenchSize): Promise<ServiceFigures> {
  const service = await startIngestService("server/main.ts", size.projects);
  try {
    const cpu = cpuMeter(service.server.child.pid);
    const url = service.batchUrl.replace(/\/batch$/, "/r");
    const load = await driveReplays({ url, apiKeys: service.apiKeys, traffic: new ReplayTraffic(recordings), seconds: size.seconds, senders: size.senders, chunksPerRequest: size.chunksPerRequest });
    const shares = cpu();
    service.server.child.kill("SIGTERM");
    await service.server.child.exited;
    const catchUp = Bun.spawnSync([process.execPath, join(import.meta.dir, "catch-up.ts"), join(service.dataDir, "eu")], { stderr: "inherit" });
    if (catchUp.exitCode !== 0) throw new Error(`catch-up failed with exit code ${catchUp.exitCode}`);
    const { seconds, cpuSeconds, stored } = JSON.parse(catchUp.stdout.toString()) as { seconds: number; cpuSeconds: number; stored: StoredReplays };
    if (stored.chunks !== load.chunks || stored.logBytes !== 0) throw new Error(`acknowledged ${load.chunks} chunks; stored ${JSON.stringify(stored)}`);
    return { load, cpu: shares, catchUpSeconds: seconds, catchUpCpuSeconds: cpuSeconds, sustainedChunksPerSecond: load.chunks / (load.seconds + seconds), stored };
  } finally {
    await removeIngestService(service);
  }
}

export async function runOnce(recordings: Recording[], size: BenchSize, progress: (line: string) => void): Promise<RunFigures> {
  const floor = await measureFloor(recordings, size);
  progress(`floor ${Math.round(floor.load.chunksPerSecond)} chunks/s, ${floor.load.megabytesPerSecond.toFixed(1)} MB/s`);
  const service = await measureService(recordings, size);
  progress(`service ${Math.round(service.load.chunksPerSecond)} chunks/s, ${service.load.megabytesPerSecond.toFixed(1)} MB/s, catch-up ${service.catchUpSeconds.toFixed(1)} s`);
  return { floor, service };
}
