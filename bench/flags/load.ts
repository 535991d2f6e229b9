// Load drivers for flag requests over keep-alive HTTP (../http-client.ts: prepared request bytes
// over a pool of connections, as lean as the driver can be, since it shares the machine).
// `paced` is open loop: request i is due at start + i / rate whatever the answers, and its
// latency runs from that due time, so a stalled server is charged for every request it held
// up (no coordinated omission), and so is a late driver. `unpaced` is closed loop, for the
// highest rate answered.

export interface PacedOptions {
  url: string;
  bodies: string[];
  /** Requests per second. */
  rate: number;
  warmUpSeconds: number;
  seconds: number;
  /** Requests in flight at most; due requests beyond it wait in the driver, their clock running. */
  maxInFlight: number;
  /** After the last due time, how long answers may still take before the rest count as errors. */
  drainTimeoutMs: number;
}

export interface LatencySummary {
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface PacedResult extends LatencySummary {
  /** Requests due in the measured window. */
  requests: number;
  /** Of those, answered 200. */
  answered: number;
  errors: number;
  /** Failed requests by HTTP status (0 = no answer). */
  errorStatuses: Record<number, number>;
  /** 200 answers per second received during the measured window (for whichever request): the throughput delivered. */
  achievedRate: number;
  /** How late the driver sent measured requests after their due time, p99: its timer, and waiting at the in-flight cap. */
  sendLateP99Ms: number;
}

import { HttpPool, postRequestBytes } from "../http-client.ts";
import { percentile } from "../percentile.ts";

const headers = { "Content-Type": "application/json" };
/**
 * The shortest wait between sends. Bun.sleep() with less than a millisecond returns at once, so
 * waiting for each request's due time (0.2 ms apart at 5,000/s) spun a whole core of the two the
 * server runs on (measured: 115% CPU for an empty loop). Requests falling due in between are sent
 * together when the timer fires, or as answers arrive; the delay counts in their latency.
 */
const timerStepMs = 1;
/** Each body as a whole request to `url`. */
const requestsFor = (url: string, bodies: string[]) => bodies.map((body) => postRequestBytes(new URL(url), headers, body));

function summarise(latencies: Float64Array): LatencySummary {
  const sorted = latencies.sort();
  return { p50Ms: percentile(sorted, 0.5), p90Ms: percentile(sorted, 0.9), p99Ms: percentile(sorted, 0.99), maxMs: sorted[sorted.length - 1] ?? Number.NaN };
}

export async function paced(options: PacedOptions): Promise<PacedResult> {
  const intervalMs = 1000 / options.rate;
  const total = Math.round(options.rate * (options.warmUpSeconds + options.seconds));
  const measuredFrom = Math.round(options.rate * options.warmUpSeconds);
  const measured = total - measuredFrom;
  // NaN marks a measured request without a 200 answer.
  const latencies = new Float64Array(measured).fill(Number.NaN);
  const sendLate = new Float64Array(measured);
  const errorStatuses: Record<number, number> = {};
  const requests = requestsFor(options.url, options.bodies);
  const pool = HttpPool.forUrl(new URL(options.url), options.maxInFlight);
  let sent = 0;
  let inFlight = 0;
  let completed = 0;
  let answersInWindow = 0;
  let allDone: () => void = () => {};
  const finished = new Promise<void>((resolve) => (allDone = resolve));
  const start = performance.now() + 10;
  const windowStart = start + measuredFrom * intervalMs;
  const windowEnd = start + total * intervalMs;

  const send = async (index: number) => {
    const dueAt = start + index * intervalMs;
    const at = index - measuredFrom;
    if (at >= 0) sendLate[at] = performance.now() - dueAt;
    // Resolves once the whole answer is read: that is when a client has its flags.
    const status = await pool.send(requests[index % requests.length]!);
    const answeredAt = performance.now();
    if (status === 200 && answeredAt >= windowStart && answeredAt < windowEnd) answersInWindow++;
    if (at >= 0) {
      if (status === 200) latencies[at] = answeredAt - dueAt;
      else errorStatuses[status] = (errorStatuses[status] ?? 0) + 1;
    }
    inFlight--;
    completed++;
    pump();
    if (completed === total) allDone();
  };

  // Sends every request that is due, as far as the in-flight cap allows.
  function pump() {
    const dueUpTo = Math.min(total, Math.floor((performance.now() - start) / intervalMs) + 1);
    while (sent < dueUpTo && inFlight < options.maxInFlight) {
      inFlight++;
      void send(sent++);
    }
  }

  while (sent < total) {
    pump();
    if (sent < total) await Bun.sleep(Math.max(timerStepMs, start + sent * intervalMs - performance.now()));
  }
  const drained = await Promise.race([finished.then(() => true), Bun.sleep(options.drainTimeoutMs).then(() => false)]);
  pool.close();
  if (!drained) await finished;

  const answered = latencies.filter((latency) => !Number.isNaN(latency));
  return {
    requests: measured,
    answered: answered.length,
    errors: measured - answered.length,
    errorStatuses,
    achievedRate: answersInWindow / ((windowEnd - windowStart) / 1000),
    sendLateP99Ms: percentile(sendLate.sort(), 0.99),
    ...summarise(answered),
  };
}

export interface UnpacedResult extends LatencySummary {
  answered: number;
  errors: number;
  /** Answered requests per second. */
  rate: number;
}

/** `connections` senders, each sending its next request as soon as the last is answered. */
export async function unpaced(url: string, bodies: string[], connections: number, seconds: number): Promise<UnpacedResult> {
  const latencies: number[] = [];
  const requests = requestsFor(url, bodies);
  const pool = HttpPool.forUrl(new URL(url), connections);
  let errors = 0;
  let cursor = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const sender = async () => {
    while (performance.now() < deadline) {
      const sentAt = performance.now();
      const status = await pool.send(requests[cursor++ % requests.length]!);
      if (status === 200) latencies.push(performance.now() - sentAt);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: connections }, sender));
  pool.close();
  const elapsedSeconds = (performance.now() - started) / 1000;
  return { answered: latencies.length, errors, rate: latencies.length / elapsedSeconds, ...summarise(Float64Array.from(latencies)) };
}
