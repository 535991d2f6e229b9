// bench/mail: the transactional-mail API through its HTTP surface, alone in its own process on
// SQLite (the default store): accepted emails per second (one per request and 100 per batch)
// against a bare durable floor, delivered emails per second (its own queue, DKIM-signed, to a
// local SMTP sink offering STARTTLS) against nodemailer sending the same emails to the same
// sink, and the service's memory. Each figure against its baseline in the same run
// (bench/README.md).
//   bun bench/mail/run.ts [--quick] [--write]   (BENCH_RUNS=3, BENCH_EMAILS=1000,
//   BENCH_BATCHED=1000, BENCH_SEED=42; BENCH_CPU_PROFILE_DIR: the mail process writes a CPU
//   profile there; --quick: one run of 200 + 200, about 30 s)
// The default sizes take 2.5 minutes here when the machine is otherwise idle, 5 when other work
// keeps both cores busy: the service delivers under a hundred emails a second on this machine,
// each email costing four SQLite commits (fsync'd) to accept and four more to deliver.
import { runServiceBench } from "../service-runs.ts";
import { mailSection } from "./report.ts";
import { runOnce, type BenchSize, type RunFigures } from "./run-once.ts";

const quick = process.argv.includes("--quick");
const write = process.argv.includes("--write");
const runs = Number(process.env.BENCH_RUNS ?? (quick ? 1 : 3));
const size: BenchSize = {
  seed: Number(process.env.BENCH_SEED ?? 42),
  singles: Number(process.env.BENCH_EMAILS ?? (quick ? 200 : 1_000)),
  batched: Number(process.env.BENCH_BATCHED ?? (quick ? 200 : 1_000)),
  singlesInFlight: 32,
  batchesInFlight: 4,
};

await runServiceBench<RunFigures>({
  heading: "Transactional mail",
  command: `bun bench/mail/run.ts${quick ? " --quick" : ""}`,
  sharing: "the driver (with the DNS server), the SMTP sink, the baselines and the mail service",
  runs,
  write,
  runOnce: (progress) => runOnce(size, progress),
  section: (report) => mailSection({ ...report, size }),
});
