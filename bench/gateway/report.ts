// The "Messaging gateway" section of bench/RESULTS.md: medians over the runs, then each run.
import { deliveryBatchMax } from "../../server/gateway/deliveries/delivery-worker.ts";
import { fmt, median } from "../figures.ts";
import type { BenchSize, RunFigures } from "./run-once.ts";

const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MiB`;
const kib = (bytes: number) => `${fmt(bytes / 1024, 1)} KiB`;
const rate = (perSecond: number) => `${fmt(perSecond)}/s`;
const percent = (fraction: number) => `${fmt(100 * fraction, 1)}%`;

export function gatewaySection({ figures, size, command, machine, seconds }: { figures: RunFigures[]; size: BenchSize; command: string; machine: string; seconds: number }): string {
  const pick = (value: (run: RunFigures) => number) => median(figures.map(value));
  const queued = pick((run) => run.sends.queuedPerSecond);
  const floor = pick((run) => run.floor.queuedPerSecond);
  const dispatched = pick((run) => run.sends.dispatchedPerSecond);
  const delivered = pick((run) => run.inbound.deliveriesPerSecond);
  const loop = pick((run) => run.deliveryLoop.deliveriesPerSecond);
  // Each run's own ratio: the disk's fsync time, and with it both sides, moves between runs.
  const queuedShare = pick((run) => run.sends.queuedPerSecond / run.floor.queuedPerSecond);
  const deliveredShare = pick((run) => run.inbound.deliveriesPerSecond / run.deliveryLoop.deliveriesPerSecond);
  const perRun = figures.map(
    (run, at) =>
      `- run ${at + 1}: queued ${rate(run.sends.queuedPerSecond)} (floor ${rate(run.floor.queuedPerSecond)}), dispatched ${rate(run.sends.dispatchedPerSecond)} ` +
      `(${fmt(run.sends.queueSeconds, 1)} s to queue, ${fmt(run.sends.dispatchSeconds, 1)} s until all sent; gateway CPU ${fmt(run.sends.gatewayCpuUsPerMessage)} us/message, floor ${fmt(run.floor.cpuUsPerMessage)} us/message; ` +
      `${run.sends.duplicatesRefused} re-sends refused by the network, ${fmt(run.receipts)} receipts delivered once each), ` +
      `inbound ${rate(run.inbound.deliveriesPerSecond)} (${fmt(run.inbound.seconds, 1)} s, gateway CPU ${fmt(run.inbound.gatewayCpuUsPerDelivery)} us/delivery, ${run.inbound.retries} posted again after a time-out; loop ${rate(run.deliveryLoop.deliveriesPerSecond)}), ` +
      `memory idle ${mib(run.memory.idle.rssBytes)} RSS / ${mib(run.memory.idle.heapUsedBytes)} heap, ${size.warmInstances} numbers ${mib(run.memory.warm.rssBytes)} / ${mib(run.memory.warm.heapUsedBytes)}, ` +
      `${size.warmInstances + size.instances} numbers ${mib(run.memory.loaded.rssBytes)} / ${mib(run.memory.loaded.heapUsedBytes)}`,
  );
  return `## Messaging gateway (bench/gateway) — ${new Date().toISOString().slice(0, 10)}

${machine}
Command: \`${command}\` (${figures.length} run${figures.length === 1 ? "" : "s"}, ${fmt(seconds)} s in all); figures are medians over the runs.
Set-up: the gateway alone in its own process (startGateway + Bun.serve on loopback, SQLite in a fresh directory, WAL; as \`npm start\` runs it), the simulated network in another,
${size.numbers} paired numbers, per-number limits lifted (\`GATEWAY_SENDS_PER_MINUTE=1000000000\`, \`GATEWAY_WARMUP_DAILY_CAPS=off\`), a webhook receiver in the driver process that
verifies every signature with \`standardwebhooks\`. Requests are prepared bytes on keep-alive connections (bench/http-client.ts).
- Queued: ${fmt(size.messages)} text messages to ${fmt(size.recipients)} recipients through \`POST /v1/send\`, ${size.inFlight} in flight; from the first request to the last 202.
  Baseline: a bare Bun server (bench/gateway/queue-floor-server.ts) that parses the same body and answers 202 after one INSERT into the gateway's own SQLite schema through the same store code (same WAL file settings), no key check, no validation.
- Dispatched: from the first request until \`GET /v1/usage\` counts every message sent (the network accepted it); dispatch runs while messages are still being queued, and every message's delivered receipt is posted to the webhook meanwhile.
  Checked: every recipient's inbox holds each message once (none lost, none twice), the network accepted exactly as many, each receipt reached the webhook once.
- Inbound: ${fmt(size.inbound)} messages from ${size.contacts} contacts to the ${size.numbers} numbers (${fmt(size.contacts * size.numbers)} conversations, each sending in order) through the network's control API, ${size.inFlight} in flight;
  from the first one sent until the receiver has the last. Checked: each delivered once, each conversation in order, every signature valid (a post repeated under the same webhook-id after the gateway's time-out is acknowledged and not counted again, as Standard Webhooks asks of receivers; the runs below say how many).
  Baseline: a bare loop in its own process (bench/gateway/delivery-loop.ts) posting the same number of bodies of the same shape, signed the same way, with fetch, to the same receiver, ${deliveryBatchMax} conversations at once (as many as the gateway's delivery worker claims per pass), nothing stored.
- Memory: a fresh gateway, RSS and heap after a full collection (read inside the gateway process), with ${size.warmInstances} numbers paired and connected (they warm the code paths up), then ${size.warmInstances + size.instances}; per instance = difference / ${size.instances}. The network's memory is in its own process and does not count.

| measure | gateway | baseline | gateway / baseline (median of the runs' ratios) |
|---|---|---|---|
| queued messages per second (\`POST /v1/send\` answered 202) | ${rate(queued)} | ${rate(floor)} (bare server, one SQLite insert) | ${percent(queuedShare)} |
| dispatched messages per second (first request until all sent) | ${rate(dispatched)} | - | - |
| gateway CPU per message, queue and dispatch (all threads) | ${fmt(pick((run) => run.sends.gatewayCpuUsPerMessage))} us | ${fmt(pick((run) => run.floor.cpuUsPerMessage))} us (bare server, queue only) | - |
| inbound deliveries per second (first inbound until the last delivered) | ${rate(delivered)} | ${rate(loop)} (bare signed-post loop) | ${percent(deliveredShare)} |
| gateway CPU per inbound delivery (all threads) | ${fmt(pick((run) => run.inbound.gatewayCpuUsPerDelivery))} us | - | - |
| memory per connected instance: RSS | ${kib(pick((run) => run.memory.rssBytesPerInstance))} | - | - |
| memory per connected instance: JavaScript heap | ${kib(pick((run) => run.memory.heapBytesPerInstance))} | - | - |
| gateway RSS / heap idle (a project, no number) | ${mib(pick((run) => run.memory.idle.rssBytes))} / ${mib(pick((run) => run.memory.idle.heapUsedBytes))} | - | - |

What bounds these figures: the store is SQLite in WAL mode with synchronous=FULL (a queued message is on disk before its 202), Bun's SQL client runs each
statement on the gateway's main thread, and every statement is its own commit waiting for an fsync (2 to 4 ms each on this disk, whose fsync time varies
several-fold with the machine's other work: compare the floor between runs). An outbound message costs 3 commits of its own (its queue insert; its delivered
receipt's update and that receipt's delivery insert) and shares the rest: each number's share of a dispatch pass is claimed, started, ended and settled in one
statement each, and each delivery pass claims and settles its batch in one statement each (before this batching, 2026-11-27: 8 commits per message, 119 queued
and 56 dispatched per second on a loaded machine). An inbound message costs 1 commit (its insert, before the network is acknowledged) plus its share of the
pass's two. While a commit waits no request is answered, so under load the gateway's own webhook time-out can lapse and post a delivery again (receivers
de-duplicate on \`webhook-id\`; the runs below count it).

Per run:
${perRun.join("\n")}
`;
}
