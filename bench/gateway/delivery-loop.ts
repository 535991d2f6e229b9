// Baseline for inbound deliveries per second, in a process of its own as the gateway's delivery
// worker is: a bare loop that posts M bodies shaped like the gateway's message.received
// deliveries, signed the same way (server/http/standard-webhooks.ts) at the moment of
// posting, with fetch, to the same receiver, as many conversations at once as the gateway posts
// (deliveryBatchMax) and each conversation's messages one after the other. Nothing is stored.
// Prints "posting from <performance.timeOrigin + now>" as it starts (the driver times from there).
import { deliveryBatchMax } from "../../server/gateway/deliveries/delivery-worker.ts";
import { signedHeaders } from "../../server/http/standard-webhooks.ts";
import { phoneRange } from "./gateway-client.ts";

const receiverUrl = process.env.BENCH_RECEIVER_URL!;
const secret = process.env.BENCH_WEBHOOK_SECRET!;
const messages = Number(process.env.BENCH_MESSAGES);
const contacts = phoneRange(process.env.BENCH_CONTACT_PREFIX!, Number(process.env.BENCH_CONTACTS));
const numbers = phoneRange(process.env.BENCH_NUMBER_PREFIX!, Number(process.env.BENCH_NUMBERS));

const pairs = contacts.flatMap((from) => numbers.map((to) => ({ from, to })));
const conversations = pairs.map(() => [] as { id: string; payload: string }[]);
for (let at = 0; at < messages; at++) {
  const conversation = at % pairs.length;
  const { from, to } = pairs[conversation]!;
  const id = Bun.randomUUIDv7();
  const data = { networkId: `sim-msg:${crypto.randomUUID()}`, from, to, sentAt: new Date().toISOString(), content: { type: "text", text: `inbound c${conversation} ${conversations[conversation]!.length}` } };
  const payload = JSON.stringify({ id, event: "message.received", projectId: "baseline", instanceId: "baseline", createdAt: new Date().toISOString(), data });
  conversations[conversation]!.push({ id, payload });
}

async function post({ id, payload }: { id: string; payload: string }): Promise<void> {
  const headers = { ...signedHeaders(secret, id, Math.floor(Date.now() / 1000), payload), "webhook-attempt": "1" };
  const response = await fetch(receiverUrl, { method: "POST", headers, body: payload, redirect: "manual" });
  await response.text();
  if (response.status < 200 || response.status >= 300) throw new Error(`the receiver answered ${response.status}`);
}

console.log(`posting from ${performance.timeOrigin + performance.now()}`);
await Promise.all(
  Array.from({ length: deliveryBatchMax }, async (_, first) => {
    const mine = conversations.filter((_, at) => at % deliveryBatchMax === first);
    const longest = Math.max(0, ...mine.map((payloads) => payloads.length));
    for (let seq = 0; seq < longest; seq++) for (const payloads of mine) if (payloads[seq]) await post(payloads[seq]!);
  }),
);
