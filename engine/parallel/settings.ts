// How many threads a query may use: QUERY_WORKERS, the main thread included (1: the main
// thread alone, no workers; n: n - 1 decode workers beside it).
import { availableParallelism } from "node:os";

/** Past this many threads a query's parts are too few (81 for 10M events) to keep them busy, and each worker costs its own heap. */
export const queryWorkersMax = 8;

export const defaultQueryWorkers = (): number => Math.max(1, Math.min(availableParallelism(), queryWorkersMax));

/** QUERY_WORKERS as a count (1 to queryWorkersMax), or the default when unset; null when it is not one. */
export function parseQueryWorkers(value: string | undefined): number | null {
  if (value === undefined || value.trim() === "") return defaultQueryWorkers();
  const count = Number(value);
  return Number.isInteger(count) && count >= 1 && count <= queryWorkersMax ? count : null;
}
