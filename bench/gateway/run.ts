// bench/gateway: the messaging gateway through its HTTP surface, alone in its own process with
// the simulated network in another: queued and dispatched messages per second, inbound webhook
// deliveries per second, memory per connected instance, each against a baseline measured in the
// same run (bench/README.md).
//   bun bench/gateway/run.ts [--quick] [--write]   (BENCH_RUNS=3, BENCH_MESSAGES=5000,
//   BENCH_INBOUND=2500, BENCH_INSTANCES=200)
// The default sizes are what three runs measure in about a quarter of an hour here: every write
// the gateway commits waits for an fsync (SQLite WAL, synchronous=FULL), about 5 ms on this
// machine's disk, so it queues and dispatches tens of messages per second, not thousands.
import { loadavg } from "node:os";
import { writeResultsSection } from "../results.ts";
import { gatewaySection, machineLine } from "./report.ts";
import { runOnce, type BenchSize, type RunFigures } from "./run-once.ts";

const quick = process.argv.includes("--quick");
const write = process.argv.includes("--write");
const runs = Number(process.env.BENCH_RUNS ?? (quick ? 1 : 3));
const size: BenchSize = {
  messages: Number(process.env.BENCH_MESSAGES ?? (quick ? 600 : 5_000)),
  inFlight: 32,
  recipients: 1_000,
  numbers: 10,
  inbound: Number(process.env.BENCH_INBOUND ?? (quick ? 300 : 2_500)),
  contacts: 100,
  warmInstances: 10,
  instances: Number(process.env.BENCH_INSTANCES ?? (quick ? 20 : 200)),
};

const loadAtStart = loadavg()[0]!;
const startedAt = performance.now();
const figures: RunFigures[] = [];
for (let run = 1; run <= runs; run++) {
  figures.push(await runOnce(size, (line) => console.error(`run ${run}: ${line} (${Math.round((performance.now() - startedAt) / 1000)} s)`)));
  console.error(`run ${run}:`, JSON.stringify(figures.at(-1)));
}
const command = `bun bench/gateway/run.ts${quick ? " --quick" : ""}`;
const section = gatewaySection({ figures, size, command, machine: machineLine(loadAtStart, loadavg()[0]!), seconds: (performance.now() - startedAt) / 1000 });
console.log(section);
if (write) writeResultsSection("Messaging gateway", section);
