// The project's webhook receiver: a Bun server that verifies each delivery's signature with the
// `standardwebhooks` library (as a project's receiver would), answers 204, and keeps what the
// benchmark checks: inbound messages exactly once and in order per conversation, receipts once
// each, no bad signature. As Standard Webhooks asks of receivers, a delivery whose webhook-id was
// already received is a retry (the gateway did not see the first answer in time) and is
// acknowledged without being processed again; those are counted. Inbound texts are "inbound <conversation> <seq>" (inbound.ts), so order
// is checked by each conversation's next expected sequence number.
import { Webhook } from "standardwebhooks";

interface Delivery {
  id: string;
  event: string;
  data: { networkId?: string; messageId?: string; content?: { type: string; text?: string } };
}

export interface ReceiverCounts {
  /** message.received deliveries, repeats included. */
  received: number;
  /** Distinct network ids among them. */
  distinctReceived: number;
  /** message.delivered receipts, repeats included, and distinct message ids among them. */
  receipts: number;
  distinctReceipts: number;
  /** Inbound messages that arrived out of their conversation's order. */
  outOfOrder: number;
  badSignatures: number;
  /** Deliveries whose webhook-id was received before (a retry of one whose answer the gateway missed), not processed again. */
  retriesAlreadyReceived: number;
  /** Distinct webhook-ids carrying an inbound message another webhook-id already carried: a real duplicate. */
  duplicateMessages: number;
}

export class WebhookReceiver {
  readonly url: string;
  private readonly server: ReturnType<typeof Bun.serve>;
  private verifier: Webhook;
  private counts!: ReceiverCounts;
  private readonly seenIds = new Set<string>();
  private receivedIds = new Set<string>();
  private receiptIds = new Set<string>();
  private nextSeq = new Map<string, number>();
  /** performance.now() of the last message.received. */
  lastReceivedAt = 0;
  private waiters: { done: () => boolean; resolve: () => void }[] = [];

  constructor(secret: string) {
    this.verifier = new Webhook(secret);
    this.reset();
    this.server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => this.receive(request) });
    this.url = this.server.url.origin + "/hook";
  }

  /** Verifies with `secret` from now on (another project, or the baseline's bodies). */
  useSecret(secret: string): void {
    this.verifier = new Webhook(secret);
  }

  reset(): void {
    this.counts = { received: 0, distinctReceived: 0, receipts: 0, distinctReceipts: 0, outOfOrder: 0, badSignatures: 0, retriesAlreadyReceived: 0, duplicateMessages: 0 };
    this.receivedIds = new Set();
    this.receiptIds = new Set();
    this.nextSeq = new Map();
    this.lastReceivedAt = 0;
  }

  snapshot(): ReceiverCounts {
    return { ...this.counts };
  }

  /** Resolves once `done` holds of the counts (checked after every delivery); rejects after `timeoutMs` with the counts. */
  until(done: (counts: ReceiverCounts) => boolean, timeoutMs: number): Promise<void> {
    if (done(this.counts)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the webhook receiver still waits after ${timeoutMs} ms: ${JSON.stringify(this.counts)}`)), timeoutMs);
      this.waiters.push({ done: () => done(this.counts), resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  private async receive(request: Request): Promise<Response> {
    const body = await request.text();
    let delivery: Delivery;
    try {
      delivery = this.verifier.verify(body, Object.fromEntries(request.headers)) as Delivery;
    } catch {
      this.counts.badSignatures++;
      this.wake();
      return new Response("bad signature", { status: 400 });
    }
    const webhookId = request.headers.get("webhook-id")!;
    if (this.seenIds.has(webhookId)) {
      this.counts.retriesAlreadyReceived++;
      this.wake();
      return new Response(null, { status: 204 });
    }
    this.seenIds.add(webhookId);
    if (delivery.event === "message.received") this.inbound(delivery);
    else if (delivery.event === "message.delivered") {
      this.counts.receipts++;
      this.receiptIds.add(delivery.data.messageId!);
      this.counts.distinctReceipts = this.receiptIds.size;
    }
    this.wake();
    return new Response(null, { status: 204 });
  }

  private inbound(delivery: Delivery): void {
    this.counts.received++;
    if (this.receivedIds.has(delivery.data.networkId!)) this.counts.duplicateMessages++;
    this.receivedIds.add(delivery.data.networkId!);
    this.counts.distinctReceived = this.receivedIds.size;
    const [, conversation, seq] = (delivery.data.content?.text ?? "").split(" ");
    const expected = this.nextSeq.get(conversation!) ?? 0;
    if (Number(seq) !== expected) this.counts.outOfOrder++;
    this.nextSeq.set(conversation!, Number(seq) + 1);
    this.lastReceivedAt = performance.now();
  }

  private wake(): void {
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.done()) return true;
      waiter.resolve();
      return false;
    });
  }

  stop(): void {
    this.server.stop(true);
  }
}
