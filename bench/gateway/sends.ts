// Outbound: N messages queued through POST /v1/send by `inFlight` concurrent clients (each 202
// is a message durably queued), dispatched by the gateway through its paired numbers to the
// simulated network. Queued/s runs from the first request to the last 202; dispatched/s from
// the first request until the store holds every message as sent (the network has accepted
// each). Then every recipient's inbox is read: each message must be there exactly once.
import type { SimulatedNetworkControl } from "../../server/gateway/network/simulated/index.ts";
import { HttpPool, postRequestBytes } from "../http-client.ts";
import { processMs } from "../process-usage.ts";
import { call } from "./gateway-client.ts";

/** Time between two reads of progress while waiting for the dispatch to end. */
const progressPollMs = 20;

export interface SendFigures {
  queuedPerSecond: number;
  dispatchedPerSecond: number;
  queueSeconds: number;
  dispatchSeconds: number;
  /** Gateway CPU (all threads) per message, from the first request until all were sent. */
  gatewayCpuUsPerMessage: number;
  /** Sends the network refused as repeats of a message id it already had (a re-send after a lost answer). */
  duplicatesRefused: number;
}

export interface SendLoad {
  messages: number;
  inFlight: number;
  recipients: string[];
}

/** The request bytes for message `at`: text to a recipient, recipients in turn. */
export function sendRequests(url: URL, key: string, { messages, recipients }: SendLoad): Uint8Array[] {
  const headers = { apikey: key, "content-type": "application/json" };
  return Array.from({ length: messages }, (_, at) => postRequestBytes(url, headers, JSON.stringify({ to: recipients[at % recipients.length], text: `bench message ${at}` })));
}

/** Sends every request, `inFlight` at a time; resolves with each 202's message id, or throws at the first other answer. */
export async function sendAll(pool: HttpPool, requests: Uint8Array[], inFlight: number): Promise<string[]> {
  const ids: string[] = new Array(requests.length);
  let next = 0;
  const worker = async () => {
    for (let at = next++; at < requests.length; at = next++) {
      const answer = await pool.exchange(requests[at]!);
      if (answer.status !== 202) throw new Error(`POST /v1/send answered ${answer.status}: ${answer.body}`);
      ids[at] = (JSON.parse(answer.body!) as { id: string }).id;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return ids;
}

export async function measureSends(gateway: { url: string; pid: number }, key: string, network: SimulatedNetworkControl, load: SendLoad): Promise<SendFigures> {
  const requests = sendRequests(new URL("/v1/send", gateway.url), key, load);
  const pool = HttpPool.forUrl(new URL(gateway.url), load.inFlight);
  const before = await network.stats();
  const cpuBefore = processMs(gateway.pid);
  const started = performance.now();
  const ids = await sendAll(pool, requests, load.inFlight);
  const queuedAt = performance.now();
  pool.close();
  while ((await network.stats()).messagesAccepted - before.messagesAccepted < load.messages) await Bun.sleep(progressPollMs);
  for (;;) {
    const usage = await call<{ sent: number; pending: number; rejected: number }>(gateway.url, "GET", "/v1/usage", key);
    if (usage.rejected > 0) throw new Error(`${usage.rejected} messages failed`);
    if (usage.sent >= load.messages && usage.pending === 0) break;
    await Bun.sleep(progressPollMs);
  }
  const dispatchedAt = performance.now();
  const cpuMs = processMs(gateway.pid) - cpuBefore;
  const after = await network.stats();
  await checkInboxes(network, load.recipients, ids);
  const accepted = after.messagesAccepted - before.messagesAccepted;
  if (accepted !== load.messages) throw new Error(`the network accepted ${accepted} messages for ${load.messages} queued`);
  return {
    queuedPerSecond: load.messages / ((queuedAt - started) / 1000),
    dispatchedPerSecond: load.messages / ((dispatchedAt - started) / 1000),
    queueSeconds: (queuedAt - started) / 1000,
    dispatchSeconds: (dispatchedAt - started) / 1000,
    gatewayCpuUsPerMessage: (cpuMs * 1000) / load.messages,
    duplicatesRefused: after.duplicatesRefused - before.duplicatesRefused,
  };
}

/** Every queued message is in its recipient's inbox exactly once, and nothing else is. */
async function checkInboxes(network: SimulatedNetworkControl, recipients: string[], ids: string[]): Promise<void> {
  const expected = new Map<string, string>(ids.map((id, at) => [id, recipients[at % recipients.length]!]));
  let held = 0;
  for (const phone of recipients) {
    for (const message of await network.inbox(phone)) {
      held++;
      const to = expected.get(message.messageId);
      if (to === undefined) throw new Error(`${phone} holds ${message.messageId}, which was not queued or arrived twice`);
      if (to !== phone) throw new Error(`${message.messageId} was queued for ${to} but reached ${phone}`);
      expected.delete(message.messageId);
    }
  }
  if (expected.size > 0) throw new Error(`${expected.size} queued messages are in no inbox (inboxes hold ${held} for ${ids.length} queued)`);
}
