// Inbound deliveries: each inbound message becomes a signed webhook delivery, retried on the
// spec's schedule (10 s, 30 s, 2 min, 5 min, 15 min, 1 h, 6 h; the clock is moved, not
// waited for) and then dead; a dead letter replays within 30 days and answers 410 after,
// its row kept. A receiver that fails, times out and recovers gets every message exactly
// once, in order per conversation.
import { afterEach, expect, test } from "bun:test";
import { deliveryRetryDelaysMs } from "../../server/gateway/deliveries/schedule.ts";
import { startTestGateway, testRootKey, waitFor, type TestGateway } from "./harness.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

const number = "+4915100000001";
let gateway: TestGateway;
let receiver: WebhookReceiver;

afterEach(async () => {
  receiver?.close();
  await gateway?.close();
});

async function setUp(env: Record<string, string> = {}) {
  gateway = await startTestGateway(env);
  const project = await gateway.project();
  receiver = startWebhookReceiver(project.webhookSecret);
  receiver.mode = "fail";
  expect((await gateway.call("PUT", `/v1/projects/${project.id}/webhook`, { key: testRootKey, body: { url: receiver.url } })).status).toBe(200);
  const instanceId = await gateway.pairedInstance(project.key, number);
  return { project, instanceId };
}

const deliveriesOf = async (key: string, event: string, state?: string) =>
  ((await gateway.call("GET", `/v1/deliveries?limit=200${state ? `&state=${state}` : ""}`, { key })).body.deliveries as any[]).filter((delivery) => delivery.event === event);

test("a failing receiver gets the delivery at 10 s, 30 s, 2 min, 5 min, 15 min, 1 h and 6 h, then it is dead; replayed, it is delivered", async () => {
  expect(deliveryRetryDelaysMs).toEqual([10_000, 30_000, 120_000, 300_000, 900_000, 3_600_000, 21_600_000]);
  const { project, instanceId } = await setUp();
  await gateway.phones.sendFromPhone("+4917000000009", number, { text: "hello gateway" });
  await waitFor(async () => (await deliveriesOf(project.key, "message.received", "retrying")).length === 1, 10_000, "the first attempt");
  let [delivery] = await deliveriesOf(project.key, "message.received");
  expect(delivery).toEqual({
    id: expect.any(String),
    projectId: project.id,
    instanceId,
    event: "message.received",
    state: "retrying",
    attempts: 1,
    lastError: "HTTP 500: receiver down",
    lastStatus: 500,
    nextAttemptAt: expect.any(String),
    payloadExpiresAt: expect.any(String),
    payloadExpired: false,
    createdAt: expect.any(String),
    deliveredAt: null,
    deadAt: null,
  });
  expect(Date.parse(delivery.nextAttemptAt) - gateway.clock.now()).toBeGreaterThan(deliveryRetryDelaysMs[0]! - 1_000);
  expect(Date.parse(delivery.nextAttemptAt) - gateway.clock.now()).toBeLessThanOrEqual(deliveryRetryDelaysMs[0]!);
  for (const [index] of deliveryRetryDelaysMs.entries()) {
    // Not due a second early.
    gateway.clock.advance(Date.parse(delivery.nextAttemptAt) - gateway.clock.now() - 1_000);
    await gateway.sweep();
    expect((await deliveriesOf(project.key, "message.received"))[0].attempts).toBe(index + 1);
    gateway.clock.advance(1_000);
    await gateway.sweep();
    [delivery] = await deliveriesOf(project.key, "message.received");
    expect(delivery.attempts).toBe(index + 2);
    if (index < deliveryRetryDelaysMs.length - 1) {
      expect(delivery.state).toBe("retrying");
      expect(Date.parse(delivery.nextAttemptAt) - gateway.clock.now()).toBeGreaterThan(deliveryRetryDelaysMs[index + 1]! - 1_000);
      expect(Date.parse(delivery.nextAttemptAt) - gateway.clock.now()).toBeLessThanOrEqual(deliveryRetryDelaysMs[index + 1]!);
    }
  }
  expect(delivery).toMatchObject({ state: "dead", attempts: 8, lastError: "HTTP 500: receiver down", nextAttemptAt: null, deadAt: expect.any(String) });
  expect((await deliveriesOf(project.key, "message.received", "dead")).map((dead) => dead.id)).toEqual([delivery.id]);
  // Dead stays dead: more time and passes make no attempt.
  gateway.clock.advance(86_400_000);
  await gateway.sweep();
  expect((await deliveriesOf(project.key, "message.received"))[0]).toMatchObject({ state: "dead", attempts: 8 });

  receiver.mode = "ok";
  const replayed = await gateway.call("POST", `/v1/deliveries/${delivery.id}/replay`, { key: project.key });
  expect(replayed.status).toBe(200);
  expect(replayed.body).toMatchObject({ id: delivery.id, state: "pending", attempts: 0, deadAt: null });
  await waitFor(async () => (await deliveriesOf(project.key, "message.received"))[0].state === "delivered", 10_000, "the replay");
  const received = receiver.accepted.filter((accepted) => accepted.event === "message.received");
  expect(received).toEqual([{ id: delivery.id, event: "message.received", attempt: 1, data: { networkId: expect.any(String), from: "+4917000000009", to: number, sentAt: expect.any(String), content: { type: "text", text: "hello gateway" } } }]);
  expect(receiver.badSignatures).toBe(0);
  // Replaying what is not dead is a 409; another project's delivery is a 404, as is an unknown id.
  expect((await gateway.call("POST", `/v1/deliveries/${delivery.id}/replay`, { key: project.key })).body).toEqual({ error: { code: "not_dead", message: "the delivery is delivered; only a dead letter can be replayed" } });
  const other = await gateway.project();
  expect((await gateway.call("POST", `/v1/deliveries/${delivery.id}/replay`, { key: other.key })).body).toEqual({ error: { code: "not_found", message: "delivery not found" } });
  expect((await gateway.call("POST", "/v1/deliveries/nope/replay", { key: project.key })).status).toBe(404);
});

test("after 30 days a dead letter's payload is dropped: replay answers 410 and the row remains, also for the operator", async () => {
  const { project } = await setUp();
  await gateway.phones.sendFromPhone("+4917000000009", number, { text: "too late" });
  await waitFor(async () => (await deliveriesOf(project.key, "message.received", "retrying")).length === 1);
  for (const delayMs of deliveryRetryDelaysMs) {
    gateway.clock.advance(delayMs);
    await gateway.sweep();
  }
  const [dead] = await deliveriesOf(project.key, "message.received", "dead");
  expect(dead).toMatchObject({ state: "dead", attempts: 8, payloadExpired: false });
  // Within the 30 days the operator's view lists it among dead letters.
  const adminDead = (await gateway.call("GET", "/v1/admin/deliveries?state=dead", { key: testRootKey })).body.deliveries.map((row: { id: string }) => row.id);
  expect(adminDead).toContain(dead.id);
  gateway.clock.advance(30 * 86_400_000);
  const sweep = await gateway.sweep();
  expect(sweep.payloadsExpired).toBeGreaterThanOrEqual(1);
  const gone = { error: { code: "payload_expired", message: `the payload expired ${dead.payloadExpiresAt} (payloads are kept 30 days); the row remains for the record` } };
  expect(await gateway.call("POST", `/v1/deliveries/${dead.id}/replay`, { key: project.key })).toMatchObject({ status: 410, body: gone });
  expect(await gateway.call("POST", `/v1/admin/deliveries/${dead.id}/replay`, { key: testRootKey })).toMatchObject({ status: 410, body: gone });
  expect((await deliveriesOf(project.key, "message.received"))[0]).toMatchObject({ id: dead.id, state: "dead", payloadExpired: true, attempts: 8 });
});

test("a receiver that fails, then times out, then recovers gets every message exactly once, in order per conversation", async () => {
  const { project } = await setUp({ GATEWAY_WEBHOOK_TIMEOUT_MS: "300" });
  const contacts = ["+4917000000011", "+4917000000012", "+4917000000013"];
  const sent = new Map<string, string[]>(contacts.map((contact) => [contact, []]));
  const sendRound = async (round: number) => {
    for (const contact of contacts) {
      const text = `${contact} #${round}`;
      await gateway.phones.sendFromPhone(contact, number, { text });
      sent.get(contact)!.push(text);
    }
  };
  for (let round = 0; round < 3; round += 1) await sendRound(round);
  await waitFor(async () => (await deliveriesOf(project.key, "message.received", "retrying")).length === contacts.length, 10_000, "each conversation's head to fail");
  // Only each conversation's oldest message was tried: the rest wait behind it.
  expect((await deliveriesOf(project.key, "message.received", "pending")).length).toBe(6);
  receiver.mode = "hang";
  for (let round = 3; round < 5; round += 1) await sendRound(round);
  gateway.clock.advance(deliveryRetryDelaysMs[0]!);
  await gateway.sweep();
  const timedOut = await deliveriesOf(project.key, "message.received", "retrying");
  expect(timedOut.map((delivery) => [delivery.attempts, delivery.lastError])).toEqual(contacts.map(() => [2, "no answer within 300 ms"]));
  receiver.mode = "ok";
  gateway.clock.advance(deliveryRetryDelaysMs[1]!);
  await gateway.sweep();
  await waitFor(async () => (await deliveriesOf(project.key, "message.received", "delivered")).length === 15, 10_000, "every message delivered");
  const byContact = new Map<string, string[]>(contacts.map((contact) => [contact, []]));
  for (const accepted of receiver.accepted.filter((delivery) => delivery.event === "message.received")) byContact.get(accepted.data.from)!.push(accepted.data.content.text);
  expect(Object.fromEntries(byContact)).toEqual(Object.fromEntries(sent));
  const ids = receiver.accepted.map((accepted) => accepted.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(receiver.badSignatures).toBe(0);
  expect((await gateway.call("GET", "/v1/usage", { key: project.key })).body).toEqual({ sent: 0, rejected: 0, received: 15, pending: 0, dead: 0 });
});
