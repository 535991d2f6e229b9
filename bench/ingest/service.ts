// What bench/ingest's measurements share: the service with its benchmark projects, a bare
// reference server under the same load, and the catch-up after a durable load.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drive, type LoadOptions, type LoadResult } from "./load.ts";
import { cpuByThreadMeter, totalMicros, type CpuByThread } from "./cpu-by-thread.ts";
import { spawnService, type ServiceProcess } from "../../test/helpers/process.ts";

/** A load's shape without its target: what every measurement of one run shares. */
export type LoadShape = Omit<LoadOptions, "url" | "apiKeys" | "targetRate">;

export interface ReferenceResult {
  load: LoadResult;
  /** The server's CPU time (all threads) per acknowledged event. */
  cpuMicrosPerEvent: number;
  cpuByThread: CpuByThread;
}

/** A bare reference server under the same load: the parse-only ceiling, or the durable floor. */
export async function measureReference(entry: string, shape: LoadShape): Promise<ReferenceResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-reference-"));
  const server = await spawnService({ DATA_DIR: dataDir }, [entry], "plain");
  try {
    const cpuByThreadSince = cpuByThreadMeter(server.child.pid);
    const load = await drive({ ...shape, url: `${server.url}/batch`, apiKeys: ["none"] });
    const cpuByThread = cpuByThreadSince(load.events);
    return { load, cpuMicrosPerEvent: totalMicros(cpuByThread), cpuByThread };
  } finally {
    server.child.kill("SIGKILL");
    await server.child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export interface IngestService {
  server: ServiceProcess;
  /** Region eu's data directory holds the events. */
  dataDir: string;
  /** Where batches are posted. */
  batchUrl: string;
  /** One public key per benchmark project: the spec caps one project at 5,000 events/s. */
  apiKeys: string[];
}

/** Signs a bench user up on the service at `baseUrl` and makes `projects` projects in region eu through the console API; their public keys. */
export async function createBenchProjects(baseUrl: string, projects: number): Promise<string[]> {
  const headers = { "content-type": "application/json" };
  const signup = await fetch(`${baseUrl}/app/auth/signup`, {
    method: "POST",
    headers,
    body: JSON.stringify({ email: "bench@example.com", name: "Bench", password: "violet-harbour-71-quietly" }),
  });
  const cookie = signup.headers.get("set-cookie")!.split(";")[0]!;
  const orgId = ((await signup.json()) as { orgs: { id: string }[] }).orgs[0]!.id;
  const apiKeys: string[] = [];
  for (let index = 0; index < projects; index++) {
    const project = await fetch(`${baseUrl}/app/orgs/${orgId}/projects`, {
      method: "POST",
      headers: { ...headers, cookie },
      body: JSON.stringify({ name: `Bench ${index}`, region: "eu" }),
    });
    apiKeys.push(((await project.json()) as { public_keys: { key: string }[] }).public_keys[0]!.key);
  }
  return apiKeys;
}

/** The service `entry` runs, on a fresh data directory with region eu only, and `projects` projects made through the console API. */
export async function startIngestService(entry: string, projects: number): Promise<IngestService> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-ingest-"));
  const server = await spawnService({ DATA_DIR: dataDir, REGIONS: "eu" }, [entry]);
  try {
    const apiKeys = await createBenchProjects(server.url, projects);
    return { server, dataDir, batchUrl: `${server.url}/ingest/eu/batch`, apiKeys };
  } catch (error) {
    server.child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

export interface CatchUp {
  /** Time to seal and compact what the service had not when it stopped. */
  seconds: number;
  cpuSeconds: number;
  /** Rows in the Parquet parts afterwards, and their bytes. */
  storedEvents: number;
  bytes: number;
}

/**
 * Stops the service (stopping seals what is buffered) and times the compaction it had not done
 * yet, in another process (catch-up.ts). The data directory stays for the caller to remove.
 */
export async function stopAndCatchUp(service: IngestService): Promise<CatchUp> {
  service.server.child.kill("SIGTERM");
  await service.server.child.exited;
  const catchUp = Bun.spawnSync([process.execPath, join(import.meta.dir, "catch-up.ts"), join(service.dataDir, "eu")], { stderr: "inherit" });
  if (catchUp.exitCode !== 0) throw new Error(`catch-up failed with exit code ${catchUp.exitCode}`);
  return JSON.parse(catchUp.stdout.toString()) as CatchUp;
}

/** Kills the service if it still runs and removes its data. */
export async function removeIngestService(service: IngestService): Promise<void> {
  service.server.child.kill("SIGKILL");
  await service.server.child.exited;
  rmSync(service.dataDir, { recursive: true, force: true });
}
