// bench/flags: remote evaluation of 50 flags for one person (issue 7's target: p99 under 5 ms at
// 5,000 requests/s) against a bare server answering the same bytes, in the same run with the
// same open-loop driver and rate. Each run starts a fresh service, creates the flags through the
// console API, captures one real answer for the baseline, and measures both; the median of the
// runs goes to the "Feature flags (bench/flags)" section of bench/RESULTS.md.
//   bun bench/flags/run.ts   (BENCH_RUNS=3 BENCH_SECONDS=30 BENCH_WARMUP_SECONDS=5 BENCH_RATE=5000
//                             BENCH_CEILING_SECONDS=10 BENCH_CEILING_CONNECTIONS=32)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeResultsSection } from "../results.ts";
import { spawnService } from "../../test/helpers/process.ts";
import { flagCount, generateFlags } from "./flag-set.ts";
import { measure, type LoadSettings } from "./measure.ts";
import { flagRequestBodies } from "./persons.ts";
import { currentLoad, flagsReport, fmt, sectionHeading, type RunFigures } from "./report.ts";
import { prepareService } from "./setup.ts";

const runs = Number(process.env.BENCH_RUNS ?? 3);
const settings: LoadSettings = {
  rate: Number(process.env.BENCH_RATE ?? 5_000),
  warmUpSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 5),
  seconds: Number(process.env.BENCH_SECONDS ?? 30),
  // Bun's fetch opens at most 256 connections to a host at once; more would only queue in it.
  maxInFlight: 256,
  drainTimeoutMs: 10_000,
  ceilingConnections: Number(process.env.BENCH_CEILING_CONNECTIONS ?? 32),
  ceilingSeconds: Number(process.env.BENCH_CEILING_SECONDS ?? 10),
};
const seed = 42;
const persons = 100_000;
/** Distinct request bodies the driver cycles through (Zipf draws, so popular persons repeat). */
const bodyCount = 20_000;

const flags = generateFlags(seed);
const bodiesFor = (token: string) => flagRequestBodies({ seed, token, persons, bodies: bodyCount });
const loadAtStart = currentLoad();
const scratch = mkdtempSync(join(tmpdir(), "bench-flags-"));
const answerPath = join(scratch, "answer.json");
const figures: RunFigures[] = [];
let requestBytes = 0;
let answerBytes = 0;

try {
  for (let run = 1; run <= runs; run++) {
    const dataDir = join(scratch, `data-${run}`);
    const service = await spawnService({ DATA_DIR: dataDir, REGIONS: "eu" });
    let bodies: string[];
    let flagsUrl: string;
    try {
      const prepared = await prepareService(service.url, flags, (token) => bodiesFor(token)[0]!);
      flagsUrl = prepared.flagsUrl;
      bodies = bodiesFor(prepared.token);
      // The baseline serves this very answer, so both send the same bytes.
      const answer = await (await fetch(flagsUrl, { method: "POST", headers: { "content-type": "application/json" }, body: bodies[0]! })).text();
      if (Object.keys((JSON.parse(answer) as { flags: object }).flags).length !== flagCount) throw new Error(`the answer does not hold ${flagCount} flags: ${answer}`);
      writeFileSync(answerPath, answer);
      answerBytes = answer.length;
      requestBytes = bodies.reduce((sum, body) => sum + body.length, 0) / bodies.length;
    } catch (error) {
      service.child.kill("SIGKILL");
      throw error;
    }
    const serviceFigures = await measure(service, flagsUrl, bodies, settings);
    rmSync(dataDir, { recursive: true, force: true });
    const baselineServer = await spawnService({}, ["bench/flags/static-server.ts", answerPath], "plain");
    const baselineFigures = await measure(baselineServer, `${baselineServer.url}/flags/?v=2`, bodies, settings);
    figures.push({ service: serviceFigures, baseline: baselineFigures });
    for (const [name, m] of [["service", serviceFigures], ["baseline", baselineFigures]] as const) {
      console.log(
        `run ${run} ${name}: ${fmt(m.paced.achievedRate)}/s, p50 ${fmt(m.paced.p50Ms, 2)} p90 ${fmt(m.paced.p90Ms, 2)} p99 ${fmt(m.paced.p99Ms, 2)} max ${fmt(m.paced.maxMs, 1)} ms, ` +
          `errors ${m.paced.errors}, RSS ${fmt(m.peakRssBytes / 2 ** 20)} MiB, CPU server ${fmt(m.cpu.server, 2)} driver ${fmt(m.cpu.driver, 2)} others ${fmt(m.cpu.others, 2)}` +
          `${m.ceiling ? `, ceiling ${fmt(m.ceiling.rate)}/s` : ""}`,
      );
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const kinds = (test: (flag: (typeof flags)[number]) => boolean) => flags.filter(test).length;
const operatorsUsed = new Set(flags.flatMap((flag) => (flag.create.rules ?? []).flatMap((rule) => rule.properties.map((condition) => condition.operator))));
const flagMix =
  `${flags.length} flags: ${kinds((f) => f.create.kind === "boolean" && !f.create.stickiness)} boolean, ${kinds((f) => f.create.kind === "multivariate")} multivariate (2-4 variants with payloads), ` +
  `${kinds((f) => f.create.stickiness !== undefined)} sticky to the company group with group conditions; ` +
  `${kinds((f) => f.create.rules !== undefined)} with 1-3 rules of 1-3 conditions (${operatorsUsed.size} of the 14 operators occur), ${kinds((f) => !f.enabled)} disabled`;
const report = flagsReport({ settings, runs: figures, seed, persons, flagMix, requestBytes, answerBytes, loadAtStart });
writeResultsSection(sectionHeading, report);
console.log(report);
