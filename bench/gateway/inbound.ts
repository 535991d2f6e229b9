// Inbound: contacts send M messages to the paired numbers through the simulated network's
// control API; the gateway stores each as a delivery and posts it, signed, to the project's
// webhook (webhook-receiver.ts). Measured from the first inbound message sent until the receiver
// has the last one. Conversations (one contact writing to one number) each send their messages
// one after the other, so their order is defined and the receiver checks it.
import { HttpPool, postRequestBytes } from "../http-client.ts";
import { processMs } from "../process-usage.ts";
import type { WebhookReceiver } from "./webhook-receiver.ts";

/** Longest the receiver waits for the last delivery before the benchmark fails. */
export const deliveryTimeoutMs = 300_000;

export interface InboundLoad {
  messages: number;
  contacts: string[];
  numbers: string[];
  /** Requests to the network's control API in flight at once. */
  inFlight: number;
}

export interface InboundFigures {
  deliveriesPerSecond: number;
  seconds: number;
  gatewayCpuUsPerDelivery: number;
  /** Deliveries posted again after their first post had reached the receiver (the gateway missed its answer). */
  retries: number;
}

/** A conversation: one contact writing to one paired number, with its messages' request bytes in order. */
export interface Conversation {
  name: string;
  requests: Uint8Array[];
}

/** The contacts' messages as conversations, each message's text "inbound <conversation> <seq>". */
export function inboundConversations(networkUrl: string, { messages, contacts, numbers }: InboundLoad): Conversation[] {
  const pairs = contacts.flatMap((from) => numbers.map((to) => ({ from, to })));
  const conversations = pairs.map(({ from }, at) => ({ name: `c${at}`, url: new URL(`/phones/${encodeURIComponent(from)}/messages`, networkUrl), requests: [] as Uint8Array[] }));
  for (let at = 0; at < messages; at++) {
    const conversation = conversations[at % conversations.length]!;
    const body = JSON.stringify({ to: pairs[at % pairs.length]!.to, text: `inbound ${conversation.name} ${conversation.requests.length}` });
    conversation.requests.push(postRequestBytes(conversation.url, { "content-type": "application/json" }, body));
  }
  return conversations.filter((conversation) => conversation.requests.length > 0);
}

/** Sends each conversation's requests in order, `inFlight` conversations at a time (a worker's share one message each in turn). */
export async function sendConversations(pool: HttpPool, conversations: Conversation[], inFlight: number): Promise<void> {
  const worker = async (first: number) => {
    const mine = conversations.filter((_, at) => at % inFlight === first);
    const longest = Math.max(0, ...mine.map((conversation) => conversation.requests.length));
    for (let seq = 0; seq < longest; seq++) {
      for (const conversation of mine) {
        const request = conversation.requests[seq];
        if (!request) continue;
        const answer = await pool.exchange(request);
        if (answer.status !== 200) throw new Error(`the network's control API answered ${answer.status}: ${answer.body}`);
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, (_, first) => worker(first)));
}

export async function measureInbound(gateway: { pid: number }, networkUrl: string, receiver: WebhookReceiver, load: InboundLoad): Promise<InboundFigures> {
  const conversations = inboundConversations(networkUrl, load);
  const pool = HttpPool.forUrl(new URL(networkUrl), load.inFlight);
  receiver.reset();
  const cpuBefore = processMs(gateway.pid);
  const started = performance.now();
  await sendConversations(pool, conversations, load.inFlight);
  pool.close();
  await receiver.until((counts) => counts.distinctReceived >= load.messages || counts.badSignatures > 0, deliveryTimeoutMs);
  const cpuMs = processMs(gateway.pid) - cpuBefore;
  const seconds = (receiver.lastReceivedAt - started) / 1000;
  checkExactlyOnceInOrder(receiver, load.messages);
  return { deliveriesPerSecond: load.messages / seconds, seconds, gatewayCpuUsPerDelivery: (cpuMs * 1000) / load.messages, retries: receiver.snapshot().retriesAlreadyReceived };
}

/** Each of `messages` inbound messages reached the receiver once, each conversation in order, every signature valid. */
export function checkExactlyOnceInOrder(receiver: WebhookReceiver, messages: number): void {
  const counts = receiver.snapshot();
  const problems = [
    counts.badSignatures > 0 && `${counts.badSignatures} deliveries had a bad signature`,
    counts.received !== messages && `${counts.received} message.received deliveries for ${messages} messages`,
    counts.distinctReceived !== messages && `${counts.distinctReceived} distinct inbound messages for ${messages}`,
    counts.outOfOrder > 0 && `${counts.outOfOrder} inbound messages out of their conversation's order`,
    counts.duplicateMessages > 0 && `${counts.duplicateMessages} inbound messages delivered under two webhook-ids`,
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`inbound deliveries: ${problems.join("; ")}`);
}
