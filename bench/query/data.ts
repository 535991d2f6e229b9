// bench/query's data: the seeded generator's events spread evenly over eight weeks, written
// through the real storage path (EventStore buffers them, seals Arrow segments and compacts
// them into zstd Parquet parts per UTC day, sorted by person and time) with the service's
// default tuning, like test/engine/dataset.ts does for the engine tests. Generating 10M
// events takes minutes, so the directory is cached by seed, size and formats, and reused.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultStorageTuning, EventStore } from "../../storage/event-store.ts";
import { manifestVersion } from "../../storage/manifest.ts";
import type { StoredEvent } from "../../storage/event-record.ts";
import { snapshotChunks, type ChunkRef } from "../../engine/chunk-store.ts";
import type { PersonSource } from "../../engine/query-data.ts";
import { storedEvent } from "../../test/storage/fixtures.ts";
import { generateEvents, mulberry32 } from "../ingest/generator.ts";

/** Bumped whenever what is written changes (generator, spread, persons), so old caches are not reused. */
const dataFormat = 4;
const cacheRoot = join(import.meta.dir, ".data");
const doneFile = "bench-data.json";
/** Each user's first event time (Float64 per user index), for when persons were created. */
const firstSeenFile = "first-seen.f64";

/** The project's time zone: the cases' days and weeks are local, and the range crosses the end of summer time (25 Oct). */
export const timeZone = "Europe/Paris";
/** Eight whole local weeks, Monday 7 September to Sunday 1 November, so weekly retention has 7 return periods. */
export const dataFrom = Date.parse("2026-09-07T00:00:00+02:00");
export const dataTo = Date.parse("2026-11-02T00:00:00+01:00");
export const rangeFrom = "2026-09-07";
export const rangeTo = "2026-11-01";
/** `now` for evaluating date expressions: after the data, so nothing is "today". */
export const queryNow = Date.parse("2026-11-21T12:00:00Z");

/** Users are the generator's Zipf ranks; on average this many events each, so distinct counts grow with the data. */
const eventsPerUser = 10;
/** Share of persons merged into a lower-numbered survivor (as in test/engine/dataset.ts), so queries apply merge overrides. */
const mergedShare = 0.1;
/** Person property `plan`, for the breakdown by a person property. */
const personPlans = ["free", "starter", "growth", "scale"];
const dataId = 1;
const environment = "production";

export interface BenchData {
  dir: string;
  seed: number;
  events: number;
  users: number;
  /** Live Parquet parts and their total size. */
  parts: number;
  bytes: number;
  chunks: ChunkRef[];
  persons: PersonSource;
  /** Person property values by key, then canonical person (what DuckDB's `persons` table is made from). */
  personValues: Map<string, Map<number, unknown>>;
}

interface DoneRecord {
  parts: number;
  bytes: number;
  seconds: number;
}

const usersFor = (events: number) => Math.max(1, Math.round(events / eventsPerUser));

export function dataDirectory(seed: number, events: number): string {
  return join(cacheRoot, `seed-${seed}-events-${events}-format-${dataFormat}-manifest-${manifestVersion}`);
}

/** Writes the events through EventStore, one seal of `sealRows` events at a time, compacting after each as the service does under load. */
async function generate(dir: string, seed: number, events: number): Promise<DoneRecord> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const store = EventStore.open(dir, join(dir, "wal"), () => {});
  const step = (dataTo - dataFrom) / events;
  const firstSeen = new Float64Array(usersFor(events)).fill(Number.NaN);
  let batch: StoredEvent[] = [];
  let index = 0;
  let seals = 0;
  const write = async () => {
    store.addRows("bench", dataId, environment, batch, { file: 0, offset: ++seals });
    batch = [];
    await store.flush();
  };
  for (const event of generateEvents({ seed, users: usersFor(events) }, events)) {
    const timestamp = dataFrom + Math.floor(index++ * step);
    // Events come in time order, so a user's first is the earliest.
    if (Number.isNaN(firstSeen[event.userIndex])) firstSeen[event.userIndex] = timestamp;
    batch.push(storedEvent({
      event: event.event,
      timestamp,
      distinct_id: event.distinct_id,
      session_id: event.session_id,
      lib_name: event.lib.name,
      lib_version: event.lib.version,
      person_index: event.userIndex,
      properties: event.properties,
    }));
    if (batch.length === defaultStorageTuning.sealRows) await write();
  }
  if (batch.length > 0) await write();
  await store.stop();
  writeFileSync(join(dir, firstSeenFile), firstSeen);
  const parts = store.liveFiles().parts;
  return { parts: parts.length, bytes: parts.reduce((sum, part) => sum + part.bytes, 0), seconds: (performance.now() - started) / 1000 };
}

/**
 * Merges and person properties, drawn from their own seeded stream so they need no storage;
 * a person was created at the first event of any of its merged users.
 */
function seededPersons(seed: number, firstSeen: Float64Array) {
  const users = firstSeen.length;
  const random = mulberry32(seed + 1);
  const canonical = Int32Array.from({ length: users }, (_, index) => index);
  for (let index = 1; index < users; index++) if (random() < mergedShare) canonical[index] = canonical[Math.floor(random() * index)]!;
  const plans = new Map<number, unknown>();
  for (let person = 0; person < users; person++) {
    if (canonical[person] === person) plans.set(person, personPlans[Math.floor(random() * personPlans.length)]!);
  }
  const created = new Float64Array(users).fill(Number.NaN);
  for (let user = 0; user < users; user++) {
    const person = canonical[user]!;
    if (!(created[person]! <= firstSeen[user]!)) created[person] = firstSeen[user]!;
  }
  return { canonical, created, personValues: new Map<string, Map<number, unknown>>([["plan", plans]]) };
}

/** The cached data of this seed and size, generated first when missing or unfinished. */
export async function openBenchData(seed: number, events: number, log: (line: string) => void = () => {}): Promise<BenchData> {
  const dir = dataDirectory(seed, events);
  const donePath = join(dir, doneFile);
  if (!existsSync(donePath)) {
    log(`generating ${events.toLocaleString("en-US")} events (seed ${seed}) into ${dir} ...`);
    const done = await generate(dir, seed, events);
    writeFileSync(donePath, JSON.stringify(done));
    log(`  ${done.parts} Parquet parts, ${(done.bytes / 2 ** 20).toFixed(1)} MiB, in ${done.seconds.toFixed(0)} s`);
  }
  const done = JSON.parse(readFileSync(donePath, "utf8")) as DoneRecord;
  const store = EventStore.open(dir, join(dir, "wal"), () => {});
  const chunks = snapshotChunks(store.snapshot(dataId, environment), dir);
  const firstSeen = new Float64Array(new Uint8Array(readFileSync(join(dir, firstSeenFile))).buffer);
  const { canonical, created, personValues } = seededPersons(seed, firstSeen);
  const persons: PersonSource = { canonical, propertyValues: (key) => personValues.get(key) ?? new Map(), createdTimes: () => created, cohortMembers: () => null };
  return { dir, seed, events, users: firstSeen.length, parts: done.parts, bytes: done.bytes, chunks, persons, personValues };
}
