// A seeded dataset for engine tests: events written through the real storage path (EventStore
// buffers, seals and compacts them into Parquet), persons with merges, person properties, and
// a DuckDB session whose `events` view covers the same Parquet files.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventStore, type StorageTuning } from "../../storage/event-store.ts";
import type { StoredEvent } from "../../storage/event-record.ts";
import { ChunkStore, snapshotChunks } from "../../engine/chunk-store.ts";
import type { PersonSource, QuerySource } from "../../engine/query-data.ts";
import { storedEvent } from "../storage/fixtures.ts";
import { mulberry32 } from "../../bench/ingest/generator.ts";

/** The benchmark generator's seeded PRNG, so engine tests and benchmarks draw alike. */
export const seededRandom = mulberry32;

export const pick = <T>(random: () => number, values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

export interface Dataset {
  dataDir: string;
  store: EventStore;
  events: StoredEvent[];
  personValues: Map<string, Map<number, unknown>>;
  canonical: Int32Array;
  /** When each surviving person was created (NaN for persons merged away). */
  created: Float64Array;
  /** Stored cohort memberships (person indexes, sorted) by cohort id: tests set them. */
  cohorts: Map<string, Int32Array>;
  /** Chunks of the store's live files (and, with `buffered`, its unsealed rows). */
  source(chunkStore?: ChunkStore): QuerySource;
  close(): Promise<void>;
}

/** Partitions all live in one data id and environment. */
export const dataId = 7;
export const environment = "production";


export const eventNames = ["page_viewed", "signed_up", "purchase", "clicked", "$pageview", "$screen"] as const;
const plans = ["free", "pro", "team", "Enterprise"];
const browsers = ["Chrome", "Firefox", "Safari", "chrome-mobile"];

export interface DatasetOptions {
  seed: number;
  persons: number;
  events: number;
  /** Events fall in [start, start + days). */
  start: number;
  days: number;
  /** Rows per compaction (small: many Parquet parts). */
  compactRows?: number;
  /** Leave the last batches sealed or buffered instead of compacting everything. */
  leaveUnsealed?: boolean;
  /** Timestamps rounded down to multiples of this (coarse: many events of a person at the same millisecond). */
  tickMs?: number;
}

export async function buildDataset(options: DatasetOptions): Promise<Dataset> {
  const random = seededRandom(options.seed);
  const canonical = Int32Array.from({ length: options.persons }, (_, index) => index);
  // A tenth of the persons were merged into a lower-numbered survivor.
  for (let index = 1; index < options.persons; index++) if (random() < 0.1) canonical[index] = canonical[Math.floor(random() * index)]!;

  const events: StoredEvent[] = [];
  const lastTime = new Map<number, number>();
  const end = options.start + options.days * 86_400_000;
  for (let i = 0; i < options.events; i++) {
    const person = Math.floor(random() ** 2 * options.persons);
    // Half the events follow the person's previous one within 20 minutes: sessions of several steps.
    const previous = lastTime.get(person);
    const follow = previous !== undefined && random() < 0.5 ? previous + Math.floor(random() * 20 * 60_000) : null;
    const drawn = follow !== null && follow < end ? follow : options.start + Math.floor(random() * options.days * 86_400_000);
    const timestamp = drawn - ((drawn - options.start) % (options.tickMs ?? 1));
    lastTime.set(person, timestamp);
    const event = pick(random, eventNames);
    const properties: Record<string, unknown> = {};
    if (random() < 0.8) properties.price = Math.round(random() * 10000) / 100;
    if (random() < 0.7) properties.plan = pick(random, plans);
    if (random() < 0.5) properties.flag = random() < 0.5;
    if (random() < 0.6) properties.browser = pick(random, browsers);
    // Sometimes a number, sometimes text: files disagree on its type.
    if (random() < 0.5) properties.mixed = random() < 0.5 ? Math.floor(random() * 20) : pick(random, ["7", "12", "x", "3.5"]);
    if (random() < 0.3) properties.$current_url = `https://example.com/${pick(random, ["", "pricing", "docs", "blog/a", "docs?page=2", "pricing#plans"])}`;
    if (random() < 0.1) properties.$pathname = pick(random, ["/docs", "/about"]);
    if (event === "$screen" && random() < 0.8) properties.$screen_name = pick(random, ["Home", "Settings"]);
    if (random() < 0.4) properties.amount = Math.floor(random() * 5000) - 500;
    if (random() < 0.4) properties.currency = pick(random, ["EUR", "USD"]);
    const group = random() < 0.6 ? `org-${Math.floor(random() * 8)}` : null;
    events.push(storedEvent({
      uuid: Bun.randomUUIDv7(),
      event,
      timestamp,
      distinct_id: `user-${person}`,
      session_id: random() < 0.85 ? `s-${person}-${Math.floor(random() * 4)}` : null,
      person_index: person,
      sample_rate: random() < 0.1 ? pick(random, [0.5, 0.25]) : 1,
      geo_country: random() < 0.7 ? pick(random, ["FR", "DE", "US"]) : null,
      lib_name: pick(random, ["web", "node"]),
      is_suspect: random() < 0.05,
      groups: group ? { company: group } : null,
      group_keys: [group, null, null, null, null],
      properties,
    }));
  }
  const personValues = new Map<string, Map<number, unknown>>([["plan", new Map()], ["age", new Map()], ["score", new Map()]]);
  for (let person = 0; person < options.persons; person++) {
    if (canonical[person] !== person) continue;
    if (random() < 0.8) personValues.get("plan")!.set(person, pick(random, plans));
    if (random() < 0.7) personValues.get("age")!.set(person, 18 + Math.floor(random() * 50));
    if (random() < 0.6) personValues.get("score")!.set(person, random() < 0.5 ? Math.floor(random() * 100) : pick(random, ["high", "5"]));
  }

  // Persons were created at their first event, some of them days before the data starts.
  const created = firstEventTimes(events, canonical);
  for (let person = 0; person < created.length; person++) if (random() < 0.3) created[person]! -= Math.floor(random() * 10 * 86_400_000);
  return datasetOf(events, { canonical, personValues, created, leaveUnsealed: options.leaveUnsealed, compactRows: options.compactRows });
}

/** Each surviving person's earliest event time (NaN for persons merged away or without events). */
export function firstEventTimes(events: StoredEvent[], canonical: Int32Array): Float64Array {
  const created = new Float64Array(canonical.length).fill(Number.NaN);
  for (const event of events) {
    const person = canonical[event.person_index]!;
    if (!(created[person]! <= event.timestamp)) created[person] = event.timestamp;
  }
  return created;
}

/** A dataset of exactly these events (written through the storage path as in buildDataset). */
export async function datasetOf(
  events: StoredEvent[],
  options: { canonical?: Int32Array; personValues?: Map<string, Map<number, unknown>>; created?: Float64Array; leaveUnsealed?: boolean; compactRows?: number } = {},
): Promise<Dataset> {
  const dataDir = mkdtempSync(join(tmpdir(), "engine-"));
  const tuning: StorageTuning = { sealRows: 1 << 30, sealBytes: 1 << 30, sealCells: 1 << 30, sealAgeMs: 1 << 30, compactRows: options.compactRows ?? 400, compactAgeMs: 1 << 30, compactBacklogRows: 1 << 30, partRowsMax: 2000, partBytesMax: 2 ** 31 };
  const store = EventStore.open(dataDir, join(dataDir, "wal"), () => {}, tuning);
  const largest = events.reduce((max, event) => Math.max(max, event.person_index), -1);
  const canonical = options.canonical ?? Int32Array.from({ length: largest + 1 }, (_, index) => index);
  const personValues = options.personValues ?? new Map<string, Map<number, unknown>>();
  const batches = 8;
  const perBatch = Math.ceil(events.length / batches);
  for (let batch = 0; batch < batches; batch++) {
    const slice = events.slice(batch * perBatch, (batch + 1) * perBatch);
    if (slice.length > 0) store.addRows("p", dataId, environment, slice, { file: 0, offset: batch });
    if (options.leaveUnsealed && batch === batches - 3) await store.flush();
    else if (options.leaveUnsealed && batch === batches - 2) await store.seal();
  }
  if (!options.leaveUnsealed) await store.flush();
  const created = options.created ?? firstEventTimes(events, canonical);
  const cohorts = new Map<string, Int32Array>();
  const persons: PersonSource = { canonical, propertyValues: (key) => personValues.get(key) ?? new Map(), createdTimes: () => created, cohortMembers: (id) => cohorts.get(id) ?? null };
  return {
    dataDir,
    store,
    events,
    personValues,
    canonical,
    created,
    cohorts,
    source: (chunkStore = new ChunkStore()) => ({ store: chunkStore, chunks: snapshotChunks(store.snapshot(dataId, environment), dataDir), persons }),
    close: async () => {
      await store.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
