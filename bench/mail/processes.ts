// The processes one run starts, each on its own so its CPU and memory are its own: the SMTP
// sink, the mail service (as `npm start` runs it: its JavaScriptCore RAM setting), the durable
// floor and the nodemailer baseline (Bun's defaults).
import { join } from "node:path";
import { watchOutput } from "../../test/helpers/process.ts";
import { startBenchProcess, type BenchProcess } from "../bench-process.ts";

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
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
  const flags = profileDir ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${profileDir}`] : [];
  const env = { BENCH_DNS_SERVER: dnsServer, BENCH_SINK_PORT: String(sinkPort) };
  return startBenchProcess(join(import.meta.dir, "mail-process.ts"), "npm start", { env, dataDirPrefix: "bench-mail-", flags });
}

export function startFloor(): Promise<BenchProcess> {
  return startBenchProcess(join(import.meta.dir, "floor-server.ts"), "plain", { dataDirPrefix: "bench-mail-floor-" });
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
