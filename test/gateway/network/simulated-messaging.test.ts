// Messages through the simulated network: sends kept once per (sender, id) so a repeat is not
// delivered twice, refusals, inbound messages pushed until the gateway acknowledges them (and
// pushed again, in order, when it did not), and receipts under the same rule.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { InboundMessage } from "../../../server/gateway/network/network.ts";
import { EventLog, openSession, pairedSession, roundTrip, startHarness, type Harness } from "./simulated-harness.ts";

const gatewayNumber = "+4915112345678";
const contact = "+33612345678";
const otherContact = "+447700900123";
let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

const text = (body: string) => ({ type: "text" as const, text: body });
const textOf = (message: InboundMessage) => (message.content.type === "text" ? message.content.text : message.content.type);

describe("sends", () => {
  test("text and media reach the recipient's inbox; a repeated id answers duplicate and is not delivered again, even from a new session", async () => {
    const first = await pairedSession(harness, "inst-1", gatewayNumber);
    expect(await first.session.send(contact, text("hello"), "m-1")).toEqual({ ok: true, duplicate: false });
    const image = { type: "image" as const, mimeType: "image/png", data: new Uint8Array([137, 80, 78, 71]), fileName: "dot.png", caption: "a dot" };
    expect(await first.session.send(contact, image, "m-2")).toEqual({ ok: true, duplicate: false });
    expect(await first.session.send(contact, text("hello again"), "m-1")).toEqual({ ok: true, duplicate: true });

    // A failover: another replica resumes the instance and repeats the send it cannot know went out.
    await first.session.close();
    const second = await openSession(harness, "inst-1");
    await second.log.count("connected", 1);
    expect(await second.session.send(contact, text("hello"), "m-1")).toEqual({ ok: true, duplicate: true });

    const inbox = await harness.control.inbox(contact);
    expect(inbox).toEqual([
      { networkId: "m-1", messageId: "m-1", from: gatewayNumber, content: { type: "text", text: "hello" }, receivedAt: expect.any(Number), deliveredAt: expect.any(Number), readAt: null },
      {
        networkId: "m-2", messageId: "m-2", from: gatewayNumber, receivedAt: expect.any(Number), deliveredAt: expect.any(Number), readAt: null,
        content: { type: "image", mimeType: "image/png", dataBase64: Buffer.from([137, 80, 78, 71]).toString("base64"), fileName: "dot.png", caption: "a dot" },
      },
    ]);
    // The same id from another number is another message.
    const other = await pairedSession(harness, "inst-2", "+4915187654321");
    expect(await other.session.send(contact, text("from elsewhere"), "m-1")).toEqual({ ok: true, duplicate: false });
    expect((await harness.control.inbox(contact)).map((message) => message.from)).toEqual([gatewayNumber, gatewayNumber, "+4915187654321"]);
    await roundTrip(second.session);
    await roundTrip(other.session);
    expect(await harness.control.stats()).toEqual({ devices: 2, connectedSessions: 2, messagesAccepted: 3, duplicatesRefused: 2, inboundPendingAck: 0, receiptsPendingAck: 0 });
    await second.adapter.close();
    await other.adapter.close();
  });

  test("refusals: transient and permanent modes with their reasons, a recipient that is not E.164, a session not yet paired or closed", async () => {
    const { session, adapter } = await pairedSession(harness, "inst-1", gatewayNumber);
    expect(await harness.control.refuse(gatewayNumber, "transient")).toEqual({ phone: gatewayNumber, refusal: { mode: "transient", reason: "rate limited by the simulated network" } });
    expect(await session.send(contact, text("a"), "m-1")).toEqual({ ok: false, transient: true, reason: "rate limited by the simulated network" });
    await harness.control.refuse(gatewayNumber, "permanent", "account suspended");
    expect(await session.send(contact, text("a"), "m-1")).toEqual({ ok: false, transient: false, reason: "account suspended" });
    expect(await harness.control.refuse(gatewayNumber, null)).toEqual({ phone: gatewayNumber, refusal: null });
    // A refused send was not kept: the same id goes out once accepted.
    expect(await session.send(contact, text("a"), "m-1")).toEqual({ ok: true, duplicate: false });
    expect(await session.send("004915112345678", text("a"), "m-2")).toEqual({ ok: false, transient: false, reason: 'recipient "004915112345678" is not an E.164 number' });
    expect((await harness.control.inbox(contact)).map((message) => message.networkId)).toEqual(["m-1"]);

    const pairing = await openSession(harness, "inst-2");
    await pairing.log.count("qr", 1);
    expect(await pairing.session.send(contact, text("a"), "m-3")).toEqual({ ok: false, transient: true, reason: "the session is not paired" });
    await pairing.adapter.close();
    await adapter.close();
    expect(await session.send(contact, text("a"), "m-4")).toEqual({ ok: false, transient: true, reason: "not connected to the simulated network" });
  });
});

describe("inbound messages", () => {
  test("a contact's text and media arrive as events; acknowledged, they are not pushed again", async () => {
    const { session, log, adapter } = await pairedSession(harness, "inst-1", gatewayNumber);
    const { networkId: textId } = await harness.control.sendFromPhone(contact, gatewayNumber, { text: "hi gateway" });
    const { networkId: mediaId } = await harness.control.sendFromPhone(contact, gatewayNumber, { media: { type: "video", mimeType: "video/mp4", dataBase64: "AAEC" } });
    const [first, second] = await log.count("message", 2);
    expect(first!.message).toEqual({ networkId: textId, from: contact, sentAt: expect.any(Number), content: { type: "text", text: "hi gateway" } });
    expect(second!.message).toEqual({ networkId: mediaId, from: contact, sentAt: expect.any(Number), content: { type: "video", mimeType: "video/mp4", data: new Uint8Array([0, 1, 2]), fileName: null, caption: null } });
    expect(textId).toMatch(/^sim-msg:[0-9a-f-]{36}$/);
    await roundTrip(session);
    expect((await harness.control.stats()).inboundPendingAck).toBe(0);

    await adapter.close();
    const again = await openSession(harness, "inst-1");
    await again.log.count("connected", 1);
    await harness.control.sendFromPhone(otherContact, gatewayNumber, { text: "later" });
    await again.log.count("message", 1);
    expect(again.log.entries.map((entry) => (entry.kind === "message" ? textOf(entry.message) : entry.kind))).toEqual(["connected", "later"]);
    await again.adapter.close();
  });

  test("messages the handler rejected are pushed again, in order, on the next connection", async () => {
    const log = new EventLog();
    log.onMessage = async (message) => {
      if (textOf(message) !== "two") throw new Error("store unavailable");
    };
    const { session, adapter } = await pairedSession(harness, "inst-1", gatewayNumber, log);
    for (const body of ["one", "two", "three"]) await harness.control.sendFromPhone(contact, gatewayNumber, { text: body });
    await log.count("message", 3);
    await roundTrip(session);
    expect((await harness.control.stats()).inboundPendingAck).toBe(2);

    await adapter.close();
    const again = await openSession(harness, "inst-1");
    const redelivered = await again.log.count("message", 2);
    expect(redelivered.map((entry) => textOf(entry.message))).toEqual(["one", "three"]);
    expect(redelivered.map((entry) => entry.message)).toEqual(log.of("message").filter((entry) => textOf(entry.message) !== "two").map((entry) => entry.message));
    await roundTrip(again.session);
    expect((await harness.control.stats()).inboundPendingAck).toBe(0);
    await again.adapter.close();
  });

  test("messages not yet acknowledged when the session closed are pushed again, in order; those queued behind are not reported by the closed session", async () => {
    const log = new EventLog();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    log.onMessage = () => gate;
    const { adapter } = await pairedSession(harness, "inst-1", gatewayNumber, log);
    for (const body of ["one", "two", "three"]) await harness.control.sendFromPhone(contact, gatewayNumber, { text: body });
    await log.count("message", 1);
    await adapter.close();
    release();
    expect(log.of("message").map((entry) => textOf(entry.message))).toEqual(["one"]);

    const again = await openSession(harness, "inst-1");
    const redelivered = await again.log.count("message", 3);
    expect(redelivered.map((entry) => textOf(entry.message))).toEqual(["one", "two", "three"]);
    expect(again.log.entries[0]).toEqual({ kind: "connected" });
    await again.adapter.close();
  });

  test("messages sent while no session is connected wait in the network and arrive in order on connection", async () => {
    const first = await pairedSession(harness, "inst-1", gatewayNumber);
    await first.adapter.close();
    for (const body of ["a", "b", "c", "d"]) await harness.control.sendFromPhone(contact, gatewayNumber, { text: body });
    expect((await harness.control.stats()).inboundPendingAck).toBe(4);
    const again = await openSession(harness, "inst-1");
    const arrived = await again.log.count("message", 4);
    expect(arrived.map((entry) => textOf(entry.message))).toEqual(["a", "b", "c", "d"]);
    await again.adapter.close();
  });
});

describe("receipts", () => {
  test("delivered at once to an online phone, read when the phone reads it; acknowledged, they are not pushed again", async () => {
    const { session, log, adapter } = await pairedSession(harness, "inst-1", gatewayNumber);
    expect(await session.send(contact, text("hello"), "m-1")).toEqual({ ok: true, duplicate: false });
    const [delivered] = await log.count("receipt", 1);
    expect(delivered!.receipt).toEqual({ networkId: "m-1", status: "delivered", at: expect.any(Number) });
    expect(await harness.control.read(contact, "m-1")).toEqual({ networkId: "m-1", readAt: expect.any(Number) });
    const [, read] = await log.count("receipt", 2);
    expect(read!.receipt).toEqual({ networkId: "m-1", status: "read", at: expect.any(Number) });
    // Reading again changes nothing.
    expect((await harness.control.read(contact, "m-1")).readAt).toBe(read!.receipt.at);
    await roundTrip(session);
    expect((await harness.control.stats()).receiptsPendingAck).toBe(0);
    const [message] = await harness.control.inbox(contact);
    expect({ deliveredAt: message!.deliveredAt, readAt: message!.readAt }).toEqual({ deliveredAt: delivered!.receipt.at, readAt: read!.receipt.at });

    await adapter.close();
    const again = await openSession(harness, "inst-1");
    await again.log.count("connected", 1);
    await roundTrip(again.session);
    expect(again.log.entries).toEqual([{ kind: "connected" }]);
    await again.adapter.close();
  });

  test("to an offline phone: no delivered receipt until it comes online; it cannot read while offline", async () => {
    const { session, log, adapter } = await pairedSession(harness, "inst-1", gatewayNumber);
    expect(await harness.control.setOnline(contact, false)).toEqual({ phone: contact, online: false });
    await session.send(contact, text("one"), "m-1");
    await session.send(contact, text("two"), "m-2");
    await roundTrip(session);
    expect(log.of("receipt")).toEqual([]);
    await expect(harness.control.read(contact, "m-1")).rejects.toMatchObject({ status: 409, code: "phone_offline" });
    expect((await harness.control.inbox(contact)).map((message) => message.deliveredAt)).toEqual([null, null]);

    expect(await harness.control.setOnline(contact, true)).toEqual({ phone: contact, online: true });
    const receipts = await log.count("receipt", 2);
    expect(receipts.map((entry) => entry.receipt)).toEqual([
      { networkId: "m-1", status: "delivered", at: expect.any(Number) },
      { networkId: "m-2", status: "delivered", at: expect.any(Number) },
    ]);
    await harness.control.read(contact, "m-2");
    expect((await log.count("receipt", 3))[2]!.receipt).toEqual({ networkId: "m-2", status: "read", at: expect.any(Number) });
    await adapter.close();
  });

  test("receipts the handler rejected, or that arrived while no session was connected, are pushed again in order", async () => {
    const log = new EventLog();
    log.onReceipt = async () => {
      throw new Error("store unavailable");
    };
    const { session, adapter } = await pairedSession(harness, "inst-1", gatewayNumber, log);
    await session.send(contact, text("one"), "m-1");
    await log.count("receipt", 1);
    await adapter.close();
    await harness.control.read(contact, "m-1");
    expect((await harness.control.stats()).receiptsPendingAck).toBe(2);

    const again = await openSession(harness, "inst-1");
    const receipts = await again.log.count("receipt", 2);
    expect(receipts.map((entry) => [entry.receipt.networkId, entry.receipt.status])).toEqual([["m-1", "delivered"], ["m-1", "read"]]);
    await roundTrip(again.session);
    expect((await harness.control.stats()).receiptsPendingAck).toBe(0);
    await again.adapter.close();
  });
});
