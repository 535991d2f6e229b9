// The "Replay (bench/replay)" section of bench/RESULTS.md: throughput medians over the runs
// against the durable floor, bytes on disk per recorded minute, then each run.
import { cpus } from "node:os";
import { replayFlushLogBytes } from "../../storage/replay/replay-store.ts";
import { fmt, median } from "../figures.ts";
import { chunkIntervalMs } from "./recording.ts";
import type { BenchSize, RunFigures } from "./run-once.ts";
import type { StorageFigures } from "./storage.ts";
import type { RecordingTotals } from "./traffic.ts";

const kb = (bytes: number) => `${fmt(bytes / 1000, 1)} KB`;
const percent = (fraction: number) => `${fmt(100 * fraction, 1)}%`;
const cores = (value: number) => fmt(value, 2);

export interface ReplayReport {
  figures: RunFigures[];
  size: BenchSize;
  /** The visits' totals, and what storing them took (measured once: the same seeded visits give the same bytes). */
  totals: RecordingTotals;
  storage: { defaultInterval: StorageFigures; wholeVisit: StorageFigures };
  command: string;
  machine: string;
  seconds: number;
}

export function replaySection({ figures, size, totals, storage, command, machine, seconds }: ReplayReport): string {
  const pick = (value: (run: RunFigures) => number) => median(figures.map(value));
  const perMinute = (bytes: number) => kb(bytes / totals.minutes);
  const storageRow = (name: string, stored: StorageFigures) =>
    `| ${name} | ${fmt(stored.blocks)} | ${perMinute(stored.blockBytes)} (${fmt(totals.eventBytes / stored.blockBytes, 1)}x smaller) | ${perMinute(stored.blockAllocatedBytes)} | ${perMinute(stored.blockBytes + stored.indexBytes)} (${fmt(totals.eventBytes / (stored.blockBytes + stored.indexBytes), 1)}x smaller) |`;
  const perRun = figures.map(
    (run, at) =>
      `- run ${at + 1}: floor ${fmt(run.floor.load.chunksPerSecond)} chunks/s, ${fmt(run.floor.load.megabytesPerSecond, 1)} MB/s (p50 ${fmt(run.floor.load.p50Ms, 1)} ms, p99 ${fmt(run.floor.load.p99Ms, 1)} ms; ` +
      `cores: server ${cores(run.floor.cpu.server)}, driver ${cores(run.floor.cpu.driver)}, others ${cores(run.floor.cpu.others)}); ` +
      `service ${fmt(run.service.load.chunksPerSecond)} chunks/s, ${fmt(run.service.load.megabytesPerSecond, 1)} MB/s (p50 ${fmt(run.service.load.p50Ms, 1)} ms, p99 ${fmt(run.service.load.p99Ms, 1)} ms; ` +
      `cores: server ${cores(run.service.cpu.server)}, driver ${cores(run.service.cpu.driver)}, others ${cores(run.service.cpu.others)}), ` +
      `catch-up ${fmt(run.service.catchUpSeconds, 1)} s (CPU ${fmt(run.service.catchUpCpuSeconds, 1)} s), sustained ${fmt(run.service.sustainedChunksPerSecond)} chunks/s; ` +
      `stored ${fmt(run.service.stored.chunks)} chunks of ${fmt(run.service.stored.sessions)} sessions in ${fmt(run.service.stored.blocks)} blocks; failures ${JSON.stringify({ floor: run.floor.load.failures, service: run.service.load.failures })}`,
  );
  return `## Replay (bench/replay) — ${new Date().toISOString().slice(0, 10)}

${machine}
Command: \`${command}\` (${figures.length} run${figures.length === 1 ? "" : "s"}, ${fmt(seconds)} s in all, seed ${size.seed}); throughput figures are medians over the runs.
Recordings (bench/replay/page.ts, recording.ts, seeded): ${fmt(size.visits)} visits of 2 to 8 minutes to a typical page (a shop's collection page: nav, heading, paragraphs, a form of 5 inputs,
24 products, footer, an inlined style sheet; ${fmt(totals.snapshotElements)} elements, ${fmt(totals.snapshotNodes)} nodes with text and whitespace, serialized in rrweb-snapshot's format: a FullSnapshot of ${kb(totals.snapshotBytes)}), with rrweb's own rates: MouseMove every 500 ms
(positions every 50 ms) while the pointer moves, scrolls every 100+ ms, clicks (down, up, click), typing into masked inputs (one Input event per key, text \`****\`), DOM mutations
(basket count, a toast, products added and removed), an occasional console plugin event, and idle spells with no events. ${fmt(totals.minutes)} recorded minutes, ${fmt(totals.events / totals.minutes)} events and
${kb(totals.eventBytes / totals.minutes)} of event JSON per minute; cut into chunks as our SDK sends them, one per ${chunkIntervalMs / 1000} s of recording that has events (${fmt(totals.chunks)} chunks, ${kb(totals.eventBytes / totals.chunks)} each on average).
- Throughput: ${size.senders} senders, each on its own keep-alive connection (bench/http-client.ts), posting as fast as answers come for ${size.seconds} s; each request holds the next ${size.chunksPerRequest} chunks of
  the sender's session (a session replays one visit under a fresh UUIDv7; then the next visit), spread over ${size.projects} projects. Counted: chunks acknowledged (200, \`accepted\`), and MB
  (10^6 bytes of uncompressed request JSON) of requests whose every chunk was. Service: \`server/main.ts\` as \`npm start\` runs it, region eu, default replay settings (the log flushed into
  blocks every 30 s, or early once ${fmt(replayFlushLogBytes / 2 ** 20)} MiB arrived); after the load it is stopped and the compaction of what its log still held is timed in another process
  (bench/replay/catch-up.ts); sustained = acknowledged chunks / (load time + that catch-up). Checked: the index holds exactly the acknowledged chunks and the log is empty.
  Baseline in the same run, the durable floor: bench/ingest's bare Bun server that parses each body and appends it to one log with group-commit fdatasync before answering, nothing else
  (bench/ingest/durable-floor-server.ts), fed the same bodies by the same driver.
- Storage: the ${fmt(size.visits)} visits posted once to the service (in the driver's process, no flush timer) and compacted by the region's own \`maintainReplays()\`, after every 30 s of
  recording (the default \`REPLAY_FLUSH_INTERVAL_MS\`: each flush writes one block per session with what it finds) or once at the end (a whole visit per block). Blocks: the
  \`.json.zst\` files' sizes, and what the file system allocated for them; index: the pages of \`replay_sessions\`, \`replay_blocks\` and \`replay_chunks\` (with their indexes) in region.sqlite (SQLite's dbstat).
  Measured once: the same seeded visits give the same bytes.

| throughput | replay ingest (service) | durable floor | service / floor (median of the runs' ratios) |
|---|---|---|---|
| chunks acknowledged per second | ${fmt(pick((run) => run.service.load.chunksPerSecond))} | ${fmt(pick((run) => run.floor.load.chunksPerSecond))} | ${percent(pick((run) => run.service.load.chunksPerSecond / run.floor.load.chunksPerSecond))} |
| MB of uncompressed JSON acknowledged per second | ${fmt(pick((run) => run.service.load.megabytesPerSecond), 1)} | ${fmt(pick((run) => run.floor.load.megabytesPerSecond), 1)} | ${percent(pick((run) => run.service.load.megabytesPerSecond / run.floor.load.megabytesPerSecond))} |
| sustained chunks per second (acknowledged and compacted into blocks) | ${fmt(pick((run) => run.service.sustainedChunksPerSecond))} (catch-up ${fmt(pick((run) => run.service.catchUpSeconds), 1)} s) | - | - |
| latency per request p50 / p99 | ${fmt(pick((run) => run.service.load.p50Ms), 1)} / ${fmt(pick((run) => run.service.load.p99Ms), 1)} ms | ${fmt(pick((run) => run.floor.load.p50Ms), 1)} / ${fmt(pick((run) => run.floor.load.p99Ms), 1)} ms | - |
| CPU during the load, cores: server / driver / other processes | ${cores(pick((run) => run.service.cpu.server))} / ${cores(pick((run) => run.service.cpu.driver))} / ${cores(pick((run) => run.service.cpu.others))} | ${cores(pick((run) => run.floor.cpu.server))} / ${cores(pick((run) => run.floor.cpu.driver))} / ${cores(pick((run) => run.floor.cpu.others))} | - |

| storage per recorded minute (event JSON: ${perMinute(totals.eventBytes)}) | blocks written | blocks (file sizes) | blocks as allocated on disk | blocks + index |
|---|---|---|---|---|
${storageRow("flushed every 30 s of recording (default)", storage.defaultInterval)}
${storageRow("a whole visit per block", storage.wholeVisit)}

${meaning({ figures, totals, storage })}

${perRun.join("\n")}
`;
}

/** What the figures say, in numbers from this report; how busy the machine was, when other processes took a share worth noting. */
function meaning({ figures, totals, storage }: Pick<ReplayReport, "figures" | "totals" | "storage">): string {
  const pick = (value: (run: RunFigures) => number) => median(figures.map(value));
  const others = pick((run) => (run.service.cpu.others + run.floor.cpu.others) / 2);
  const busy = pick((run) => run.service.cpu.server + run.service.cpu.driver + run.service.cpu.others);
  const catchUps = figures.map((run) => run.service.catchUpSeconds);
  const { defaultInterval, wholeVisit } = storage;
  const perMinute = (bytes: number) => kb(bytes / totals.minutes);
  const ratios = figures.map((run) => run.service.load.chunksPerSecond / run.floor.load.chunksPerSecond);
  const sentences = [
    `Replay ingest acknowledged ${percent(median(ratios))} of the chunks per second of a server that only parses and fdatasyncs the same bodies, on the same machine in the same run`,
    `(${percent(Math.min(...ratios))} to ${percent(Math.max(...ratios))} over the runs);`,
    `besides that, it checks the key and every event's shape, samples, deduplicates (session, seq), serializes the accepted chunks again as its log record,`,
    `and compacts the log into blocks while it takes more (a flush every 30 s or once ${fmt(replayFlushLogBytes / 2 ** 20)} MiB arrived: one zstd block per session).`,
    `A flush reads the log, compresses and builds the index rows on the service's JavaScript thread; block files and the index journal are written and fsynced on the thread pool (storage/atomic-file.ts writeFileAtomicAsync).`,
    `The sustained rate is below the acknowledged one by what compaction had left when the load ended (catch-ups of ${fmt(Math.min(...catchUps), 1)} to ${fmt(Math.max(...catchUps), 1)} s here), which depends on when the last flush ran.`,
    `On disk a recorded minute of the typical page takes ${perMinute(defaultInterval.blockBytes)} of blocks with the default 30 s flush, ${fmt(totals.eventBytes / defaultInterval.blockBytes, 1)}x less than its event JSON;`,
    `a whole visit per block compresses only a little better (${perMinute(wholeVisit.blockBytes)}), but the default writes ${fmt(defaultInterval.blocks / wholeVisit.blocks, 1)}x as many files,`,
    `and small files round up to whole file-system blocks (${perMinute(defaultInterval.blockAllocatedBytes)} allocated against ${perMinute(wholeVisit.blockAllocatedBytes)}).`,
    `The index adds ${perMinute(defaultInterval.indexBytes)} per minute, ${percent(defaultInterval.chunkIndexBytes / defaultInterval.indexBytes)} of it \`replay_chunks\`: a row per chunk (${fmt(totals.chunks / totals.minutes, 1)} a minute), kept for deduplication.`,
    `These are one seeded page's figures: a page with more nodes, more mutations or more movement records more bytes per minute.`,
  ];
  if (others > 0.5) {
    sentences.push(
      `Other processes used ${cores(others)} of the machine's ${cpus().length} cores during the loads (all processes together during the service's: ${cores(busy)} cores), so the absolute rates and latencies are what the servers got of a busy machine`,
      `and vary from run to run; the service-to-floor ratio, measured under the same conditions, is the steadier figure.`,
    );
  }
  return sentences.join("\n");
}
