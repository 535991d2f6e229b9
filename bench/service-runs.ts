// The driver the service benchmarks (bench/gateway, bench/mail) share: the runs one after the
// other with their progress on stderr, the machine and its load around them, and the section
// the benchmark renders printed and, with --write, put in bench/RESULTS.md.
import { cpus, loadavg, totalmem } from "node:os";
import { fmt } from "./figures.ts";
import { writeResultsSection } from "./results.ts";

export interface ServiceBench<F> {
  /** The RESULTS.md heading this benchmark owns, e.g. "Transactional mail". */
  heading: string;
  /** The command that ran it, for the section. */
  command: string;
  /** Which processes share the machine, for the machine line. */
  sharing: string;
  runs: number;
  write: boolean;
  runOnce(progress: (line: string) => void): Promise<F>;
  section(report: { figures: F[]; command: string; machine: string; seconds: number }): string;
}

function machineLine(sharing: string, loadAtStart: number, loadAtEnd: number): string {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  return `Machine: ${cpus().length} cores (${cpu}), ${fmt(totalmem() / 2 ** 30)} GiB RAM, Bun ${Bun.version}; ${sharing} share the machine (load average ${fmt(loadAtStart, 1)} when the run started, ${fmt(loadAtEnd, 1)} when it ended).`;
}

export async function runServiceBench<F>(bench: ServiceBench<F>): Promise<void> {
  const loadAtStart = loadavg()[0]!;
  const startedAt = performance.now();
  const elapsed = () => Math.round((performance.now() - startedAt) / 1000);
  const figures: F[] = [];
  for (let run = 1; run <= bench.runs; run++) {
    figures.push(await bench.runOnce((line) => console.error(`run ${run}: ${line} (${elapsed()} s)`)));
    console.error(`run ${run}:`, JSON.stringify(figures.at(-1)));
  }
  const machine = machineLine(bench.sharing, loadAtStart, loadavg()[0]!);
  const section = bench.section({ figures, command: bench.command, machine, seconds: (performance.now() - startedAt) / 1000 });
  console.log(section);
  if (bench.write) writeResultsSection(bench.heading, section);
}
