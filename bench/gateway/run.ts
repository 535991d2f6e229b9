// bench/gateway: the messaging gateway through its HTTP surface, alone in its own process with
// the simulated network in another: queued and dispatched messages per second, inbound webhook
// deliveries per second, memory per connected instance, each against a baseline measured in the
// same run (bench/README.md).
//   bun bench/gateway/run.ts [--quick] [--write]   (BENCH_RUNS=3, BENCH_MESSAGES=5000,
//   BENCH_INBOUND=2500, BENCH_INSTANCES=200)
// The default sizes are what three runs measure in about a quarter of an hour here: every write
// the gateway commits waits for an fsync (SQLite WAL, synchronous=FULL), about 5 ms on this
// machine's disk, so it queues and dispatches tens of messages per second, not thousands.
import { runServiceBench } from "../service-runs.ts";
import { gatewaySection } from "./report.ts";
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

await runServiceBench<RunFigures>({
  heading: "Messaging gateway",
  command: `bun bench/gateway/run.ts${quick ? " --quick" : ""}`,
  sharing: "the driver, the webhook receiver, the simulated network and the gateway",
  runs,
  write,
  runOnce: (progress) => runOnce(size, progress),
  section: (report) => gatewaySection({ ...report, size }),
});
