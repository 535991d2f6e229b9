// A send cut short (its replica died between claiming the message and recording the network's
// answer) may have reached the network. It is sent again only through the same number, whose
// network keeps one message per id, never through another number (the recipient would get two);
// if that number is retired, the message fails and says why.
import { afterEach, expect, test } from "bun:test";
import { startTestGateway, testRootKey, waitFor, type TestGateway } from "./harness.ts";

const numberA = "+4915500000001";
const numberB = "+4915500000002";
const recipient = "+4917500000001";
let gateway: TestGateway;

afterEach(async () => {
  await gateway?.close();
});

/** What a replica killed mid-send leaves in the store: the message claimed through `instanceId` by a replica that is gone. */
async function interrupt(messageId: string, instanceId: string) {
  const sql = gateway.gateway.ctx.database.sql;
  await sql`UPDATE gateway_messages SET state = 'sending', instance_id = ${instanceId}, claimed_by = 'replica-gone', claim_expires_at = ${gateway.clock.now() - 1}, attempts = 1 WHERE id = ${messageId}`;
}

test("an interrupted send goes again through its own number only, and fails with the reason when that number is retired", async () => {
  gateway = await startTestGateway();
  const project = await gateway.project();
  const instanceA = await gateway.pairedInstance(project.key, numberA);
  await gateway.phones.refuse(numberA, "transient", "hold");
  const queued = await gateway.call("POST", "/v1/send", { key: project.key, body: { to: recipient, text: "once only" } });
  await waitFor(async () => (await gateway.call("GET", `/v1/messages/${queued.body.id}`, { key: project.key })).body.attempts === 1, 10_000, "the refused attempt");
  await gateway.phones.refuse(numberA, null);
  await interrupt(queued.body.id, instanceA);

  // Number A's phone unlinks it; B is ready, but the interrupted message waits for A.
  await gateway.phones.logout(numberA);
  await waitFor(async () => (await gateway.call("GET", `/v1/instances/${instanceA}/number`, { key: project.key })).body.state === "pending", 10_000, "A logged out");
  await gateway.pairedInstance(project.key, numberB);
  await gateway.sweep();
  expect((await gateway.call("GET", `/v1/messages/${queued.body.id}`, { key: project.key })).body.state).toBe("sending");
  expect(await gateway.phones.inbox(recipient)).toEqual([]);

  const retired = await gateway.call("POST", `/v1/instances/${instanceA}/retire`, { key: project.key });
  expect(retired.body.state).toBe("retired");
  const failed = (await gateway.call("GET", `/v1/messages/${queued.body.id}`, { key: project.key })).body;
  expect([failed.state, failed.failure]).toEqual(["failed", "its number was retired while a send through it was unfinished: it may or may not have reached the recipient"]);
  const events = (await gateway.call("GET", "/v1/admin/deliveries", { key: testRootKey })).body.deliveries.map((delivery: { event: string }) => delivery.event);
  expect(events).toContain("message.failed");
  await gateway.sweep();
  expect(await gateway.phones.inbox(recipient)).toEqual([]);
});

test("an interrupted send whose number is back goes out through it, once", async () => {
  gateway = await startTestGateway();
  const project = await gateway.project();
  const instanceA = await gateway.pairedInstance(project.key, numberA);
  await gateway.pairedInstance(project.key, numberB);
  await gateway.phones.refuse(numberA, "transient", "hold");
  await gateway.phones.refuse(numberB, "transient", "hold");
  const queued = await gateway.call("POST", "/v1/send", { key: project.key, body: { to: recipient, text: "once only" } });
  await waitFor(async () => (await gateway.call("GET", `/v1/messages/${queued.body.id}`, { key: project.key })).body.attempts === 1, 10_000, "the refused attempt");
  await interrupt(queued.body.id, instanceA);
  await gateway.phones.refuse(numberA, null);
  await gateway.phones.refuse(numberB, null);
  await gateway.sweep();
  await waitFor(async () => (await gateway.phones.inbox(recipient)).length === 1, 10_000, "the message");
  expect((await gateway.phones.inbox(recipient)).map((message) => [message.messageId, message.from])).toEqual([[queued.body.id, numberA]]);
});
