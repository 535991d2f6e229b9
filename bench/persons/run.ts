// bench/persons: the region API's persons and groups routes at a project of a million users
// against a project of a thousand in the same region file, same run (issue 34 item 20: a page
// must cost the same whatever the project's size), and ingest's person resolution at both.
// Replaces the "Persons and groups pages (bench/persons)" section of bench/RESULTS.md.
//   bun bench/persons/run.ts   (BENCH_RUNS=5 BENCH_REPEATS=20 BENCH_USERS=1000000 BENCH_SEED=42)
import { loadavg } from "node:os";
import { spawnService } from "../../test/helpers/process.ts";
import { mulberry32 } from "../ingest/generator.ts";
import { median } from "../figures.ts";
import { writeResultsSection } from "../results.ts";
import { requestCases, sampleTargets, timeRequest, type Targets } from "./cases.ts";
import { openBenchData, regionFile } from "./data.ts";
import { timeAttribution } from "./ingest.ts";
import { reportSection, sectionHeading, type CaseFigures } from "./report.ts";

const runs = Number(process.env.BENCH_RUNS ?? 5);
const repeats = Number(process.env.BENCH_REPEATS ?? 20);
const seed = Number(process.env.BENCH_SEED ?? 42);
const sizes = { small: 1_000, large: Number(process.env.BENCH_USERS ?? 1_000_000) };
/** Persons, identified persons and group keys drawn per project for the requests to name. */
const targetsPerProject = 200;

const data = await openBenchData(seed, sizes, console.log);
const loadAtStart = loadavg()[0] ?? Number.NaN;
const service = await spawnService({ DATA_DIR: data.dir, REGIONS: "eu" });
const random = mulberry32(seed);
const figures: CaseFigures[] = requestCases.map((requestCase) => ({ name: requestCase.name, medianMs: {}, slowestMs: {} }));
try {
  const projects = [];
  for (const project of data.projects) {
    const reply = await fetch(`${service.url}/v1/projects/${project.id}/region-token`, {
      method: "POST",
      headers: { authorization: `Bearer ${data.patSecret}`, "content-type": "application/json" },
      body: JSON.stringify({ scopes: ["persons:read"] }),
    });
    const { token, region_api_url: base } = (await reply.json()) as { token: string; region_api_url: string };
    const targets: Targets = sampleTargets(regionFile(data.dir), project.id, targetsPerProject, random);
    projects.push({ ...project, token, base, targets });
  }
  for (const requestCase of requestCases) {
    for (const project of projects) await timeRequest(project.base + requestCase.path(project.targets, random), project.token);
  }
  const runMedians = figures.map(() => new Map<string, number[]>());
  for (let run = 1; run <= runs; run++) {
    for (const [index, requestCase] of requestCases.entries()) {
      const times = new Map<string, number[]>(projects.map((project) => [project.name, []]));
      for (let repeat = 0; repeat < repeats; repeat++) {
        for (const project of projects) times.get(project.name)!.push(await timeRequest(project.base + requestCase.path(project.targets, random), project.token));
      }
      for (const [name, values] of times) {
        runMedians[index]!.set(name, [...(runMedians[index]!.get(name) ?? []), median(values)]);
        figures[index]!.slowestMs[name] = Math.max(figures[index]!.slowestMs[name] ?? 0, ...values);
      }
    }
    console.log(`run ${run} of ${runs} done`);
  }
  runMedians.forEach((byProject, index) => {
    for (const [name, values] of byProject) figures[index]!.medianMs[name] = median(values);
  });
} finally {
  service.child.kill("SIGTERM");
  await service.child.exited;
}
const ingest = { ...timeAttribution(regionFile(data.dir), data.projects, runs, seed), runs };
const section = reportSection({ data, loadAtStart, runs, repeats, cases: figures, ingest });
console.log(section);
writeResultsSection(sectionHeading, section);
