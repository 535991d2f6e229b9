// bench/persons' section of bench/RESULTS.md: each case's median at the small project (the
// baseline) and at the large one, and their ratio (1 means the page costs the same).
import { cpus, loadavg, totalmem } from "node:os";
import { fmt } from "../figures.ts";
import type { BenchData } from "./data.ts";
import { identifiedShare, secondDeviceShare, usersPerCompany } from "./population.ts";
import { groupsExaminedPerPageMax, personsExaminedPerPageMax } from "../../storage/person-directory.ts";

export const sectionHeading = "Persons and groups pages (bench/persons)";

export interface CaseFigures {
  name: string;
  /** Median ms of the runs (each run's median of its requests), and the slowest single request, by project name. */
  medianMs: Record<string, number>;
  slowestMs: Record<string, number>;
}

export interface ReportInput {
  data: BenchData;
  loadAtStart: number;
  runs: number;
  repeats: number;
  cases: CaseFigures[];
  ingest: { msByProject: Record<string, number>; merges: number; runs: number };
}

const ms = (value: number) => fmt(value, value < 10 ? 2 : 1);
const users = (count: number) => (count % 1_000_000 === 0 ? `${count / 1_000_000}M` : count % 1000 === 0 ? `${count / 1000}k` : fmt(count));

export function reportSection({ data, loadAtStart, runs, repeats, cases, ingest }: ReportInput): string {
  const [small, large] = data.projects as [BenchData["projects"][0], BenchData["projects"][0]];
  const row = (name: string, smallMs: number, largeMs: number, slowest: string) =>
    `| ${name} | ${ms(smallMs)} | ${ms(largeMs)} | ${fmt(largeMs / smallMs, 2)}x | ${slowest} |`;
  const lines = [
    `## ${sectionHeading} — ${new Date().toISOString().slice(0, 10)}`,
    "",
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown CPU"}), ${fmt(totalmem() / 2 ** 30)} GiB RAM, Bun ${Bun.version};`,
    `load average ${fmt(loadAtStart, 1)} when the run started, ${fmt(loadavg()[0]!, 1)} when it ended; the client runs on the same machine.`,
    `Data: two projects in one region.sqlite (${fmt(data.bytes / 2 ** 20)} MiB), ${users(small.users)} and ${users(large.users)} users (seed ${data.seed}), written`,
    `through PersonStore.attribute in ${fmt(data.seconds)} s: each user browses anonymously, ${fmt(identifiedShare * 100)}% identify (the anonymous person merges`,
    `into the identified one, which gets plan, seats and email and a company, ${usersPerCompany} identified users per company), and ${fmt(secondDeviceShare * 100)}% of those`,
    `merge a second device; so a project lists one person per user over about 1.4 person rows per user.`,
    `Requests: GET over HTTP to the service (\`npm start\`'s runtime), one at a time; per run each case sends ${repeats} requests to each`,
    `project (interleaved), naming persons, groups and cursors drawn at random; figures are the median over ${runs} runs of each run's median,`,
    "after one request of each case to each project. Baseline: the small project, same run, same file.",
    `Listings examine at most ${fmt(personsExaminedPerPageMax)} persons or ${fmt(groupsExaminedPerPageMax)} groups per request, so a search matching nobody answers`,
    "an empty page with a cursor after that many: it reads the whole small project but only that bound of the large one, which is",
    "what such a page costs at any size past the bound.",
    "Before the fix (at 694dc26): a page of 1,000 took about 4.5 s at 30,000 persons and a page of 20 about 9 s at 250,000 (issue 34's",
    "measurements), and writing 20,000 persons, half of them merged, took 110 s (each merge read every distinct id of the project).",
    "",
    `| case | ${users(small.users)} persons, ms | ${users(large.users)} persons, ms | ${users(large.users)} / ${users(small.users)} | slowest request at ${users(large.users)}, ms |`,
    "|---|---|---|---|---|",
    ...cases.map((figures) => row(figures.name, figures.medianMs[small.name]!, figures.medianMs[large.name]!, ms(figures.slowestMs[large.name]!))),
    row(`ingest: persons of a batch of 1,000 new events (${ingest.merges} merges), in process`,
      ingest.msByProject[small.name]!, ingest.msByProject[large.name]!, "(median of " + ingest.runs + " batches)"),
  ];
  return `${lines.join("\n")}\n`;
}
