// A suspended project loses nothing: its keys answer 401, its queued messages stay queued, and
// inbound messages are stored and held (no attempt spent on them); once enabled, the queue goes
// out and the held deliveries reach the webhook, in order.
import { afterEach, expect, test } from "bun:test";
import { startTestGateway, testRootKey, waitFor, type TestGateway } from "./harness.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

const number = "+4915400000001";
const contact = "+4917400000001";
let gateway: TestGateway;
let receiver: WebhookReceiver;

afterEach(async () => {
  receiver?.close();
  await gateway?.close();
});

test("while suspended nothing is sent or delivered and nothing is lost; enabled, everything goes", async () => {
  gateway = await startTestGateway();
  const project = await gateway.project();
  receiver = startWebhookReceiver(project.webhookSecret);
  await gateway.call("PUT", `/v1/projects/${project.id}/webhook`, { key: testRootKey, body: { url: receiver.url } });
  await gateway.pairedInstance(project.key, number);
  await waitFor(() => receiver.accepted.some((delivery) => delivery.event === "instance.paired"), 10_000, "the pairing event");

  // The number's sends are refused for now, so these three wait in the queue.
  await gateway.phones.refuse(number, "transient", "network busy");
  const queued = [];
  for (let index = 0; index < 3; index += 1) queued.push((await gateway.call("POST", "/v1/send", { key: project.key, body: { to: "+4917400000099", text: `queued ${index}` } })).body.id);
  await waitFor(async () => (await gateway.call("GET", "/v1/sends", { key: project.key })).body.sends.length === 3, 10_000, "a refused attempt each");

  expect((await gateway.call("POST", `/v1/projects/${project.id}/disable`, { key: testRootKey })).body.state).toBe("suspended");
  expect((await gateway.call("GET", "/v1/usage", { key: project.key })).status).toBe(401);
  await gateway.phones.refuse(number, null);
  for (let index = 0; index < 3; index += 1) await gateway.phones.sendFromPhone(contact, number, { text: `held ${index}` });
  gateway.clock.advance(3_600_000);
  await gateway.sweep();
  await gateway.sweep();
  // Nothing went out, nothing was tried, and everything is stored.
  expect(await gateway.phones.inbox("+4917400000099")).toEqual([]);
  expect(receiver.accepted.filter((delivery) => delivery.event === "message.received")).toEqual([]);
  const held = (await gateway.call("GET", "/v1/admin/deliveries?state=pending", { key: testRootKey })).body.deliveries.filter((delivery: { event: string }) => delivery.event === "message.received");
  expect(held.map((delivery: { attempts: number; projectId: string }) => [delivery.projectId, delivery.attempts])).toEqual([
    [project.id, 0],
    [project.id, 0],
    [project.id, 0],
  ]);

  await gateway.call("POST", `/v1/projects/${project.id}/enable`, { key: testRootKey });
  await gateway.sweep();
  await waitFor(async () => (await gateway.phones.inbox("+4917400000099")).length === 3, 10_000, "the queue to go out");
  expect((await gateway.phones.inbox("+4917400000099")).map((message) => message.messageId).sort()).toEqual([...queued].sort());
  await waitFor(() => receiver.accepted.filter((delivery) => delivery.event === "message.received").length === 3, 10_000, "the held deliveries");
  expect(receiver.accepted.filter((delivery) => delivery.event === "message.received").map((delivery) => delivery.data.content.text)).toEqual(["held 0", "held 1", "held 2"]);
  expect((await gateway.call("GET", "/v1/usage", { key: project.key })).body).toEqual({ sent: 3, rejected: 0, received: 3, pending: 0, dead: 0 });
});
