// The processes one run starts, each on its own so its CPU and memory are its own: the SMTP
// sink, the mail service (as `npm start` runs it: its JavaScriptCore RAM setting), the durable
// floor and the nodemailer baseline (Bun's defaults).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnService, watchOutput } from "../../test/helpers/process.ts";

export interface BenchProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function start(entry: string, env: Record<string, string>, runtime: "npm start" | "plain", cleanUp = () => {}, flags: string[] = []): Promise<BenchProcess> {
  const service = await spawnService(env, [...flags, join(import.meta.dir, entry)], runtime);
  return {
    url: service.url,
    pid: service.child.pid,
    async stop() {
      service.child.kill("SIGTERM");
      await service.child.exited;
      cleanUp();
    },
  };
}

export interface SinkProcess extends BenchProcess {
  smtpPort: number;
}

export async function startSink(): Promise<SinkProcess> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "sink-process.ts")], { stdout: "pipe", stderr: "inherit" });
  const output = watchOutput(child.stdout);
  const ready = await Promise.race([output.waitFor(/sink smtp (\d+) listening on (http:\/\/\S+) /), child.exited.then((code) => Promise.reject(new Error(`the sink exited with ${code}`)))]);
  return {
    url: ready[2]!,
    smtpPort: Number(ready[1]),
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

/** BENCH_CPU_PROFILE_DIR: the mail process writes a CPU profile there (Bun's --cpu-prof, also as markdown) when it stops. */
export function startMailProcess(dnsServer: string, sinkPort: number): Promise<BenchProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-mail-"));
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
  const flags = profileDir ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${profileDir}`] : [];
  const env = { BENCH_DATA_DIR: dataDir, BENCH_DNS_SERVER: dnsServer, BENCH_SINK_PORT: String(sinkPort) };
  return start("mail-process.ts", env, "npm start", () => rmSync(dataDir, { recursive: true, force: true }), flags);
}

export function startFloor(): Promise<BenchProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-mail-floor-"));
  return start("floor-server.ts", { BENCH_DATA_DIR: dataDir }, "plain", () => rmSync(dataDir, { recursive: true, force: true }));
}

export interface BaselineSending {
  /** When it began sending (performance.timeOrigin + now, ms). */
  startedAtMs: number;
  /** When the sink accepted its last email, and the CPU it used sending (all threads, us). */
  ended: Promise<{ endedAtMs: number; cpuUs: number }>;
  exited: Promise<number>;
}

/** Starts the nodemailer baseline; resolves once it begins sending. */
export async function startNodemailerBaseline(env: Record<string, string>): Promise<BaselineSending> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "nodemailer-baseline.ts")], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
  const output = watchOutput(child.stdout);
  const failed = child.exited.then((code) => Promise.reject(new Error(`the nodemailer baseline exited with ${code}`)));
  const started = await Promise.race([output.waitFor(/sending from ([\d.]+)/), failed]);
  const ended = Promise.race([output.waitFor(/sent \d+ until ([\d.]+) cpu (\d+)/), failed]).then((match) => ({ endedAtMs: Number(match[1]), cpuUs: Number(match[2]) }));
  return { startedAtMs: Number(started[1]), ended, exited: child.exited };
}
