// The "Feature flags (bench/flags)" section of bench/RESULTS.md: medians of the runs for the
// service and the baseline, the target line, and every run's figures.
import { cpus, loadavg, totalmem } from "node:os";
import type { LoadSettings, Measurement } from "./measure.ts";
import { fmt as figure, median } from "../figures.ts";

export const sectionHeading = "Feature flags (bench/flags)";
/** Issue 7: remote evaluation of 50 flags for one person, p99 under 5 ms at 5,000 requests/s. */
export const targetP99Ms = 5;
export const targetRate = 5_000;

export interface RunFigures {
  service: Measurement;
  baseline: Measurement;
}

export interface ReportContext {
  settings: LoadSettings;
  runs: RunFigures[];
  seed: number;
  persons: number;
  flagMix: string;
  requestBytes: number;
  answerBytes: number;
  loadAtStart: number;
}

/** figures.ts's fmt, with "n/a" for a figure a run could not give. */
export const fmt = (value: number, digits = 0) => (Number.isNaN(value) ? "n/a" : figure(value, digits));
const mib = (bytes: number) => `${fmt(bytes / 2 ** 20)} MiB`;

function row(name: string, measurements: Measurement[]): string {
  const of = (pick: (m: Measurement) => number) => median(measurements.map(pick));
  const ms = (pick: (m: Measurement) => number) => `${fmt(of(pick), 2)} ms`;
  return `| ${name} | ${fmt(of((m) => m.paced.achievedRate))}/s | ${ms((m) => m.paced.p50Ms)} | ${ms((m) => m.paced.p90Ms)} | ${ms((m) => m.paced.p99Ms)} | ${ms((m) => m.paced.maxMs)} | ${fmt(of((m) => m.paced.errors))} | ${mib(of((m) => m.peakRssBytes))} |`;
}

function ceilingLine(runs: RunFigures[], settings: LoadSettings): string {
  if (settings.ceilingSeconds <= 0) return "";
  const rate = (pick: (run: RunFigures) => Measurement) => fmt(median(runs.map((run) => pick(run).ceiling!.rate)));
  const p99 = (pick: (run: RunFigures) => Measurement) => fmt(median(runs.map((run) => pick(run).ceiling!.p99Ms)), 1);
  return `\nHighest rate answered (closed loop, ${settings.ceilingConnections} concurrent requests, ${settings.ceilingSeconds} s, after the paced load): ` +
    `service ${rate((run) => run.service)} requests/s (p99 ${p99((run) => run.service)} ms), baseline ${rate((run) => run.baseline)} requests/s ` +
    `(p99 ${p99((run) => run.baseline)} ms); the driver runs on the same 2 cores, so both are shared with it.\n`;
}

function runLine(run: RunFigures, index: number): string {
  const one = (name: string, m: Measurement) =>
    `${name} ${fmt(m.paced.achievedRate)}/s, p50 ${fmt(m.paced.p50Ms, 2)} / p90 ${fmt(m.paced.p90Ms, 2)} / p99 ${fmt(m.paced.p99Ms, 2)} / max ${fmt(m.paced.maxMs, 1)} ms, ` +
    `sent late p99 ${fmt(m.paced.sendLateP99Ms, 2)} ms, errors ${m.paced.errors}${m.paced.errors > 0 ? ` ${JSON.stringify(m.paced.errorStatuses)}` : ""}, RSS ${mib(m.peakRssBytes)}, ` +
    `CPU ${fmt(m.cpu.server, 2)} / ${fmt(m.cpu.driver, 2)} / ${fmt(m.cpu.others, 2)} cores` +
    (m.ceiling ? `, ceiling ${fmt(m.ceiling.rate)}/s` : "");
  return `- run ${index + 1}: ${one("service", run.service)}; ${one("baseline", run.baseline)}`;
}

export function flagsReport(context: ReportContext): string {
  const { settings, runs } = context;
  const serviceP99 = median(runs.map((run) => run.service.paced.p99Ms));
  const serviceRate = median(runs.map((run) => run.service.paced.achievedRate));
  const errors = runs.reduce((sum, run) => sum + run.service.paced.errors, 0);
  const met = settings.rate >= targetRate && serviceP99 < targetP99Ms && errors === 0;
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `## ${sectionHeading} — ${new Date().toISOString().slice(0, 10)}

Machine: ${cpus().length} cores (${cpu}), ${fmt(totalmem() / 2 ** 30)} GiB RAM, Bun ${Bun.version}; the load driver runs on the same machine
(load average ${fmt(context.loadAtStart, 1)} when the run started).
Flags: ${context.flagMix} (seed ${context.seed}), enabled in production through the console API.
Requests: PostHog's \`POST /ingest/eu/flags/?v=2\` as posthog-node sends it (no gzip), ${fmt(context.persons)} Zipf persons
with seeded person properties and a company with group properties, ${fmt(context.requestBytes)} bytes per body on average;
the answer is ${fmt(context.answerBytes)} bytes.
Load: open loop at ${fmt(settings.rate)} requests/s (each due at a fixed time whatever the answers; latency from the due time,
so stalls count for every request they delay), at most ${settings.maxInFlight} in flight over keep-alive connections,
${settings.warmUpSeconds} s warm-up then ${settings.seconds} s measured; median of ${runs.length} run(s), each with a fresh service.
Baseline, same run, same driver and rate: a bare Bun server (\`bench/flags/static-server.ts\`) that parses the request
and answers a real 50-flag answer captured from the service, pre-serialised.

| server | achieved rate | p50 | p90 | p99 | max | errors | peak RSS |
|---|---|---|---|---|---|---|---|
${row("service (evaluate 50 flags)", runs.map((run) => run.service))}
${row("baseline (fixed answer)", runs.map((run) => run.baseline))}

Target (issue 7): p99 under ${targetP99Ms} ms at ${fmt(targetRate)} requests/s: **${met ? "met" : "not met"}** (median p99 ${fmt(serviceP99, 2)} ms at ${fmt(serviceRate)} requests/s, ${errors} errors).
For scale, PostHog's rewritten Rust flags service reports p99 85 ms (p50 11.8 ms) in production, network included.
${ceilingLine(runs, settings)}
Per run ("sent late": how long after its due time the driver sent a request, from its own timer and from waiting
while ${settings.maxInFlight} requests were in flight, part of every latency above; "CPU": cores used by the server, the
driver and every other process on the machine during the paced load, from /proc):
${runs.map(runLine).join("\n")}
`;
}

export const currentLoad = () => loadavg()[0] ?? Number.NaN;
