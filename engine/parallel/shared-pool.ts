// The process's decode pool for column stores made without one of their own (benchmarks,
// tools, tests): sized by QUERY_WORKERS, started on first use; its workers hold the process
// open only while they decode. The service makes and closes its own (server/service.ts).
import { DecodePool } from "./decode-pool.ts";
import { parseQueryWorkers } from "./settings.ts";

let shared: DecodePool | null | undefined;

/** The shared pool, or null when QUERY_WORKERS is 1 (the main thread decodes alone). */
export function sharedDecodePool(): DecodePool | null {
  if (shared === undefined) {
    const threads = parseQueryWorkers(process.env.QUERY_WORKERS);
    if (threads === null) throw new Error(`QUERY_WORKERS must be an integer from 1 to the maximum: got "${process.env.QUERY_WORKERS}"`);
    shared = threads > 1 ? new DecodePool(threads - 1) : null;
  }
  return shared;
}
