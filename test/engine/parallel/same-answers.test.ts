// The executor's answers with the main thread decoding alone and with decode workers beside it:
// random queries of every kind (each kind loads chunks through QueryData.load, which reads
// ahead in the workers), over many small parts, cold (a new column store per query: parts
// decoded in workers and by the main thread) and warm (the same store again). A small cache
// bound keeps evicting, and the store never holds more than it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ChunkStore, readAheadPartsPerWorker } from "../../../engine/chunk-store.ts";
import { executeQuery } from "../../../engine/execute.ts";
import { validateQuery } from "../../../engine/ir/validate.ts";
import { DecodePool } from "../../../engine/parallel/decode-pool.ts";
import { buildDataset, seededRandom, type Dataset } from "../dataset.ts";
import {
  randomFunnelIr, randomLifecycleIr, randomPathsIr, randomRetentionIr, randomRevenueIr, randomStickinessIr, randomTrendsIr,
} from "../random-ir.ts";

const zone = "Europe/Paris";
const now = Date.parse("2026-11-21T12:00:00Z");
const limits = { rowsMax: 500_000_000, deadline: Number.MAX_SAFE_INTEGER };
const queriesPerKind = 25;
/** Room for a few parts' columns only: reads keep evicting earlier ones. */
const smallCacheBytes = 64 * 1024;

let dataset: Dataset;
let pool: DecodePool;

beforeAll(async () => {
  // Compactions of 150 rows: several parts a day, more than a query reads ahead.
  dataset = await buildDataset({ seed: 11, persons: 60, events: 4000, start: Date.parse("2026-10-20T00:00:00Z"), days: 11, compactRows: 150 });
  pool = new DecodePool(1);
});

afterAll(async () => {
  await pool.close();
  await dataset.close();
});

const kinds = [
  ["trends", randomTrendsIr],
  ["funnel", randomFunnelIr],
  ["stickiness", randomStickinessIr],
  ["retention", randomRetentionIr],
  ["lifecycle", randomLifecycleIr],
  ["revenue", randomRevenueIr],
  ["paths", randomPathsIr],
] as const;

describe("one thread and two give the same answers", () => {
  test("the dataset has parts enough to read ahead", () => {
    expect(dataset.source().chunks.filter((ref) => ref.kind === "part").length).toBeGreaterThan(readAheadPartsPerWorker);
  });

  for (const [kind, generate] of kinds) {
    test(`${kind}: ${queriesPerKind} random queries, cold and warm, cache bound kept`, async () => {
      const random = seededRandom(kind.length * 1_000 + 3);
      const before = { ...pool.counts };
      const bounded = new ChunkStore(smallCacheBytes, pool);
      for (let i = 0; i < queriesPerKind; i++) {
        const query = validateQuery(generate(random), zone, now);
        const alone = (await executeQuery(query, dataset.source(new ChunkStore(undefined, null)), limits)).result;
        const parallel = new ChunkStore(undefined, pool);
        expect({ i, cold: (await executeQuery(query, dataset.source(parallel), limits)).result }).toEqual({ i, cold: alone });
        expect({ i, warm: (await executeQuery(query, dataset.source(parallel), limits)).result }).toEqual({ i, warm: alone });
        expect({ i, bounded: (await executeQuery(query, dataset.source(bounded), limits)).result }).toEqual({ i, bounded: alone });
        expect(bounded.stats().bytes).toBeLessThanOrEqual(smallCacheBytes);
      }
      // Both threads decoded parts.
      expect(pool.counts.byWorkers).toBeGreaterThan(before.byWorkers);
      expect(pool.counts.byMain).toBeGreaterThan(before.byMain);
    });
  }
});
