// One run of the benchmark: the baselines and the gateway, each on fresh processes and data.
import { SimulatedNetworkControl } from "../../server/gateway/network/simulated/index.ts";
import { HttpPool } from "../http-client.ts";
import { processMs } from "../process-usage.ts";
import { createProject, pairNumbers, phoneRange } from "./gateway-client.ts";
import { checkExactlyOnceInOrder, deliveryTimeoutMs, measureInbound, type InboundFigures } from "./inbound.ts";
import { measureMemory, type MemoryFigures } from "./memory.ts";
import { startDeliveryLoop, startGatewayProcess, startNetwork, startQueueFloor } from "./processes.ts";
import { measureSends, sendAll, sendRequests, type SendFigures } from "./sends.ts";
import { WebhookReceiver } from "./webhook-receiver.ts";

export interface BenchSize {
  messages: number;
  inFlight: number;
  recipients: number;
  numbers: number;
  inbound: number;
  contacts: number;
  warmInstances: number;
  instances: number;
}

export interface RunFigures {
  floor: { queuedPerSecond: number; cpuUsPerMessage: number };
  sends: SendFigures;
  receipts: number;
  inbound: InboundFigures;
  deliveryLoop: { deliveriesPerSecond: number };
  memory: MemoryFigures;
}

const numberPrefix = "151";
const recipientPrefix = "161";
const contactPrefix = "171";
const pairingConcurrency = 8;

async function measureQueueFloor(size: BenchSize): Promise<RunFigures["floor"]> {
  const floor = await startQueueFloor();
  try {
    const requests = sendRequests(new URL("/v1/send", floor.url), "unused", { messages: size.messages, inFlight: size.inFlight, recipients: phoneRange(recipientPrefix, size.recipients) });
    const pool = HttpPool.forUrl(new URL(floor.url), size.inFlight);
    const cpuBefore = processMs(floor.pid);
    const started = performance.now();
    await sendAll(pool, requests, size.inFlight);
    const seconds = (performance.now() - started) / 1000;
    pool.close();
    return { queuedPerSecond: size.messages / seconds, cpuUsPerMessage: ((processMs(floor.pid) - cpuBefore) * 1000) / size.messages };
  } finally {
    await floor.stop();
  }
}

/** Outbound then inbound through one gateway with `size.numbers` paired numbers and a webhook. */
async function measureGateway(size: BenchSize, receiver: WebhookReceiver): Promise<Pick<RunFigures, "sends" | "receipts" | "inbound">> {
  const network = await startNetwork();
  const gateway = await startGatewayProcess(network.url);
  try {
    const control = new SimulatedNetworkControl(network.url);
    const project = await createProject(gateway.url, receiver.url);
    receiver.useSecret(project.webhookSecret);
    const numbers = phoneRange(numberPrefix, size.numbers);
    await pairNumbers(gateway.url, control, project.key, numbers, pairingConcurrency);
    receiver.reset();
    const sends = await measureSends(gateway, project.key, control, { messages: size.messages, inFlight: size.inFlight, recipients: phoneRange(recipientPrefix, size.recipients) });
    // Every message's `delivered` receipt reaches the webhook once; the inbound load starts after them.
    await receiver.until((counts) => counts.distinctReceipts >= size.messages, deliveryTimeoutMs);
    const { receipts, distinctReceipts, badSignatures } = receiver.snapshot();
    if (receipts !== size.messages || distinctReceipts !== size.messages || badSignatures > 0) throw new Error(`receipts: ${receipts} delivered (${distinctReceipts} distinct, ${badSignatures} bad signatures) for ${size.messages} messages`);
    const inbound = await measureInbound(gateway, network.url, receiver, { messages: size.inbound, contacts: phoneRange(contactPrefix, size.contacts), numbers, inFlight: size.inFlight });
    return { sends, receipts, inbound };
  } finally {
    await gateway.stop();
    await network.stop();
  }
}

async function measureDeliveryLoop(size: BenchSize, receiver: WebhookReceiver): Promise<RunFigures["deliveryLoop"]> {
  const secret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64")}`;
  receiver.useSecret(secret);
  receiver.reset();
  const loop = await startDeliveryLoop({
    BENCH_RECEIVER_URL: receiver.url,
    BENCH_WEBHOOK_SECRET: secret,
    BENCH_MESSAGES: String(size.inbound),
    BENCH_CONTACT_PREFIX: contactPrefix,
    BENCH_CONTACTS: String(size.contacts),
    BENCH_NUMBER_PREFIX: numberPrefix,
    BENCH_NUMBERS: String(size.numbers),
  });
  await receiver.until((counts) => counts.distinctReceived >= size.inbound || counts.badSignatures > 0, deliveryTimeoutMs);
  const code = await loop.exited;
  if (code !== 0) throw new Error(`the delivery loop exited with ${code}`);
  checkExactlyOnceInOrder(receiver, size.inbound);
  const seconds = (performance.timeOrigin + receiver.lastReceivedAt - loop.startedAtMs) / 1000;
  return { deliveriesPerSecond: size.inbound / seconds };
}

export async function runOnce(size: BenchSize, progress: (line: string) => void): Promise<RunFigures> {
  const receiver = new WebhookReceiver(`whsec_${Buffer.from("bench-initial-secret").toString("base64")}`);
  try {
    const floor = await measureQueueFloor(size);
    progress(`queue floor ${Math.round(floor.queuedPerSecond)}/s`);
    const gateway = await measureGateway(size, receiver);
    progress(`gateway queued ${Math.round(gateway.sends.queuedPerSecond)}/s, dispatched ${Math.round(gateway.sends.dispatchedPerSecond)}/s, inbound ${Math.round(gateway.inbound.deliveriesPerSecond)}/s`);
    const deliveryLoop = await measureDeliveryLoop(size, receiver);
    progress(`delivery loop ${Math.round(deliveryLoop.deliveriesPerSecond)}/s`);
    const memory = await measureMemory(size.warmInstances, size.instances);
    return { floor, ...gateway, deliveryLoop, memory };
  } finally {
    receiver.stop();
  }
}
