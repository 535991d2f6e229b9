// Compacts what a stopped service left in its replay log into blocks, in its own process (as
// bench/ingest/catch-up.ts does for events), and prints {seconds, cpuSeconds, stored} as JSON:
// the flush's time and CPU, then what the region holds of its recordings.
//   bun bench/replay/catch-up.ts <region data dir>
import { join } from "node:path";
import { RegionStore } from "../../storage/region-store.ts";
import { ReplayStore } from "../../storage/replay/replay-store.ts";
import { storedReplays } from "./stored.ts";

const regionDir = process.argv[2]!;
const store = new RegionStore(join(regionDir, "region.sqlite"));
const replays = await ReplayStore.open(regionDir, store.replays, store.journalPath);
const started = performance.now();
const cpuBefore = process.cpuUsage();
await replays.flush();
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
await replays.close();
store.close();
console.log(JSON.stringify({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, stored: storedReplays(regionDir) }));
