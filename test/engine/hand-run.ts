// Runs one Query IR document on a handful of events written through the storage path: the
// helper of the hand-worked semantics tests.
import { afterAll } from "bun:test";
import { executeQuery, type QueryLimits } from "../../engine/execute.ts";
import { validateQuery } from "../../engine/ir/validate.ts";
import type { StoredEvent } from "../../storage/event-record.ts";
import { storedEvent } from "../storage/fixtures.ts";
import { datasetOf, type Dataset } from "./dataset.ts";

const limits = { rowsMax: 1_000_000, deadline: Number.MAX_SAFE_INTEGER };
const now = Date.parse("2026-11-21T12:00:00Z");
export const hour = 3_600_000;
export const day = 24 * hour;

/** Datasets of one test file, closed when it ends (call once per file). */
export function handRunner() {
  const open: Dataset[] = [];
  afterAll(async () => {
    for (const dataset of open) await dataset.close();
  });
  return async (
    events: StoredEvent[],
    document: unknown,
    zone = "UTC",
    persons: { canonical?: Int32Array; created?: Float64Array } = {},
    limitOverrides: Partial<QueryLimits> = {},
  ) => {
    const dataset = await datasetOf(events, persons);
    open.push(dataset);
    return (await executeQuery(validateQuery(document, zone, now), dataset.source(), { ...limits, ...limitOverrides })).result as any;
  };
}

export const event = (person: number, name: string, at: number, overrides: Partial<StoredEvent> = {}) =>
  storedEvent({ event: name, timestamp: at, person_index: person, distinct_id: `p${person}`, ...overrides });
