// Load driver: `connections` concurrent senders posting 100-event batches over keep-alive
// HTTP for a fixed time, closed loop (as fast as answers come) or paced to a target rate.
// Bodies are built as bytes and sent over plain HTTP/1.1 connections (../http-client.ts), so
// the driver takes as little as it can of the CPU the server it measures needs.
import { BatchBodies } from "./generator.ts";
import { HttpPool, postRequestHead } from "../http-client.ts";
import { percentile } from "../percentile.ts";

export interface LoadOptions {
  url: string;
  /** Keys of several projects, used in turn: one project alone is capped at 5,000 events/s by the spec. */
  apiKeys: string[];
  templates: string[];
  seconds: number;
  connections: number;
  batchSize: number;
  /** Events per second across all connections; omitted = as fast as possible. */
  targetRate?: number;
}

export interface LoadResult {
  events: number;
  requests: number;
  errors: number;
  /** Failed requests by HTTP status (0 = no answer). */
  errorStatuses: Record<number, number>;
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export async function drive(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  let events = 0;
  let errors = 0;
  const errorStatuses: Record<number, number> = {};
  const fail = (status: number) => {
    errors++;
    errorStatuses[status] = (errorStatuses[status] ?? 0) + 1;
  };
  let cursor = 0;
  let requestNumber = 0;
  const bodies = new BatchBodies(options.templates);
  const url = new URL(options.url);
  const headers = { "Content-Type": "application/json" };
  // One connection per sender: each sends its next batch once the last is answered.
  const pool = HttpPool.forUrl(url, options.connections);
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const interval = options.targetRate ? (options.batchSize * options.connections * 1000) / options.targetRate : 0;

  const connection = async (index: number) => {
    let nextAt = started + (interval * index) / options.connections;
    while (performance.now() < deadline) {
      if (interval > 0) {
        const wait = nextAt - performance.now();
        if (wait > 0) await Bun.sleep(wait);
        nextAt += interval;
      }
      const apiKey = options.apiKeys[requestNumber++ % options.apiKeys.length]!;
      const request = bodies.body(apiKey, new Date().toISOString(), cursor, options.batchSize, (bodyBytes) => postRequestHead(url, headers, bodyBytes));
      cursor += options.batchSize;
      const sent = performance.now();
      const answer = await pool.exchange(request);
      if (answer.status === 200) {
        events += (JSON.parse(answer.body!) as { accepted?: number }).accepted ?? 0;
        latencies.push(performance.now() - sent);
      } else fail(answer.status);
    }
  };
  await Promise.all(Array.from({ length: options.connections }, (_, index) => connection(index)));
  pool.close();
  const elapsed = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    events,
    requests: latencies.length,
    errors,
    errorStatuses,
    eventsPerSecond: events / elapsed,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
}
