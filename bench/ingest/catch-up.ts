// Seals and compacts what a stopped service left in a region's data directory, in its own
// process so the load driver's heap stays small (its garbage collections would add to the
// latencies it measures). Prints {seconds, cpuSeconds, storedEvents, bytes} as JSON: cpuSeconds
// is the CPU time of every thread of this process during the catch-up.
//   bun bench/ingest/catch-up.ts <region data dir>
import { join } from "node:path";
import { WriteAheadLog } from "../../storage/wal.ts";
import { EventStore } from "../../storage/event-store.ts";

const regionDir = process.argv[2]!;
const wal = await WriteAheadLog.open(join(regionDir, "wal"));
const store = EventStore.open(regionDir, join(regionDir, "wal"), (position) => wal.truncateUpTo(position));
const started = performance.now();
const cpuBefore = process.cpuUsage();
await store.flush();
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const parts = store.liveFiles().parts;
await wal.close();
console.log(JSON.stringify({ seconds, cpuSeconds, storedEvents: parts.reduce((sum, part) => sum + part.rows, 0), bytes: parts.reduce((sum, part) => sum + part.bytes, 0) }));
