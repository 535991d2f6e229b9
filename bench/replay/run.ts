// bench/replay: replay ingest (POST /ingest/eu/r) through the real service, chunks and MB of
// uncompressed JSON acknowledged durably per second against the durable floor in the same run,
// and bytes on disk per recorded minute of a typical page after compaction (bench/README.md).
//   bun bench/replay/run.ts [--seconds 10] [--runs 3] [--senders 20] [--chunks-per-request 5]
//                           [--projects 4] [--visits 60] [--seed 42] [--write]
// The defaults take about 2.5 minutes here (--write: replaces the section in bench/RESULTS.md).
import { parseArgs } from "node:util";
import { runServiceBench } from "../service-runs.ts";
import { recordVisits } from "./recording.ts";
import { replaySection } from "./report.ts";
import { runOnce, type BenchSize, type RunFigures } from "./run-once.ts";
import { defaultFlushEveryMs, measureStorage } from "./storage.ts";
import { recordingTotals } from "./traffic.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    runs: { type: "string", default: "3" },
    senders: { type: "string", default: "20" },
    "chunks-per-request": { type: "string", default: "5" },
    projects: { type: "string", default: "4" },
    visits: { type: "string", default: "60" },
    seed: { type: "string", default: "42" },
    write: { type: "boolean", default: false },
  },
});
const size: BenchSize = {
  seed: Number(values.seed),
  seconds: Number(values.seconds),
  senders: Number(values.senders),
  chunksPerRequest: Number(values["chunks-per-request"]),
  projects: Number(values.projects),
  visits: Number(values.visits),
};
const recordings = recordVisits(size.seed, size.visits, Date.now());
const totals = recordingTotals(recordings);
const storage = { defaultInterval: await measureStorage(recordings, defaultFlushEveryMs), wholeVisit: await measureStorage(recordings, Number.POSITIVE_INFINITY) };
console.error("storage:", JSON.stringify(storage));
const options = process.argv.slice(2).filter((argument) => argument !== "--write");

await runServiceBench<RunFigures>({
  heading: "Replay (bench/replay)",
  command: ["bun bench/replay/run.ts", ...options].join(" "),
  sharing: "the driver, the durable floor and the service",
  runs: Number(values.runs),
  write: values.write,
  runOnce: (progress) => runOnce(recordings, size, progress),
  section: (report) => replaySection({ ...report, size, totals, storage }),
});
