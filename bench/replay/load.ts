// Load driver: `senders` concurrent senders, each posting its sessions' chunks (traffic.ts) over a
// keep-alive connection of its own as fast as answers come, for a fixed time. Counts what was
// acknowledged: chunks, and the uncompressed JSON bytes of the requests whose every chunk was.
import { HttpPool, postRequestHead } from "../http-client.ts";
import { percentile } from "../percentile.ts";
import type { ReplayTraffic } from "./traffic.ts";

export interface ReplayLoadOptions {
  url: string;
  /** Keys of several projects, used in turn (a project's ingest rate counts each chunk as an event). */
  apiKeys: string[];
  traffic: ReplayTraffic;
  seconds: number;
  senders: number;
  chunksPerRequest: number;
}

export interface ReplayLoadResult {
  seconds: number;
  requests: number;
  /** Chunks acknowledged (200, `accepted`). */
  chunks: number;
  /** Body bytes of the requests whose every chunk was acknowledged. */
  bodyBytes: number;
  /** Requests failed or chunks not accepted, by HTTP status (0 = no answer; 200 = chunks rejected in a 200). */
  failures: Record<number, number>;
  chunksPerSecond: number;
  megabytesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export async function driveReplays(options: ReplayLoadOptions): Promise<ReplayLoadResult> {
  const url = new URL(options.url);
  const headers = { "Content-Type": "application/json" };
  const pool = HttpPool.forUrl(url, options.senders);
  const latencies: number[] = [];
  const failures: Record<number, number> = {};
  const fail = (status: number, count = 1) => (failures[status] = (failures[status] ?? 0) + count);
  let chunks = 0;
  let bodyBytes = 0;
  let requestNumber = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;

  const sender = async (index: number) => {
    while (performance.now() < deadline) {
      const apiKey = options.apiKeys[requestNumber++ % options.apiKeys.length]!;
      const request = options.traffic.request(index, apiKey, options.chunksPerRequest);
      const bytes = Buffer.concat([postRequestHead(url, headers, request.body.byteLength), request.body]);
      const sent = performance.now();
      const answer = await pool.exchange(bytes);
      if (answer.status !== 200) {
        fail(answer.status);
        continue;
      }
      latencies.push(performance.now() - sent);
      const accepted = (JSON.parse(answer.body!) as { accepted: number }).accepted;
      chunks += accepted;
      if (accepted === request.chunks) bodyBytes += request.body.byteLength;
      else fail(200, request.chunks - accepted);
    }
  };
  await Promise.all(Array.from({ length: options.senders }, (_, index) => sender(index)));
  pool.close();
  const seconds = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    seconds,
    requests: latencies.length,
    chunks,
    bodyBytes,
    failures,
    chunksPerSecond: chunks / seconds,
    megabytesPerSecond: bodyBytes / 1e6 / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
}
