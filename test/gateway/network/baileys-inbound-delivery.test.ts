// What a session hands to the gateway from Baileys' events. The media download is the network
// boundary (WhatsApp's media servers are unreachable here), so it is a function that answers with
// bytes and records what it was asked for.
import { describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { proto } from "baileys";
import type { WAMessage } from "baileys";
import { InboundDelivery, inboundMediaBytesMax, readBounded } from "../../../server/gateway/network/baileys/inbound-delivery.ts";
import { makeBaileysLogger } from "../../../server/gateway/network/baileys/logger.ts";
import type { InboundMessage, Receipt } from "../../../server/gateway/network/network.ts";

const now = 1_800_000_000_000;
const contact = "4915112345678@s.whatsapp.net";

function message(id: string, fields: Record<string, unknown> = {}): WAMessage {
  return proto.WebMessageInfo.fromObject({ key: { remoteJid: contact, id, fromMe: false }, messageTimestamp: 1_700_000_000, message: { conversation: `text ${id}` }, ...fields }) as WAMessage;
}

function text(id: string): InboundMessage {
  return { networkId: id, from: "+4915112345678", sentAt: 1_700_000_000_000, content: { type: "text", text: `text ${id}` } };
}

function setup(options: { failMessage?: (message: InboundMessage) => boolean; media?: Uint8Array | null } = {}) {
  const delivered: InboundMessage[] = [];
  const receipts: Receipt[] = [];
  const downloads: string[] = [];
  const logLines: { level: string; msg?: string; id?: string }[] = [];
  const logger = makeBaileysLogger("info", {}, (line) => void logLines.push(JSON.parse(line)));
  const inbound = new InboundDelivery(
    {
      message: async (message) => {
        if (options.failMessage?.(message)) throw new Error("store unavailable");
        delivered.push(message);
      },
      receipt: async (receipt) => void receipts.push(receipt),
    },
    logger,
    async (message) => {
      downloads.push(message.key.id!);
      return options.media === undefined ? new Uint8Array([1, 2, 3]) : options.media;
    },
    () => now,
  );
  return { inbound, delivered, receipts, downloads, logLines };
}

describe("inbound messages from Baileys' messages.upsert", () => {
  test("new messages ('notify') and those that arrived while offline ('append') are delivered in order", async () => {
    const { inbound, delivered } = setup();
    void inbound.messages([message("A1"), message("A2")], "notify");
    await inbound.messages([message("A3")], "append");
    expect(delivered).toEqual([text("A1"), text("A2"), text("A3")]);
  });

  test("each message is awaited before the next, across batches", async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let firstStarted!: () => void;
    const started = new Promise<void>((resolve) => (firstStarted = resolve));
    const inbound = new InboundDelivery(
      {
        message: async (message) => {
          order.push(`start ${message.networkId}`);
          if (message.networkId === "B1") {
            firstStarted();
            await held;
          }
          order.push(`end ${message.networkId}`);
        },
        receipt: async () => {},
      },
      makeBaileysLogger("silent"),
      async () => null,
      () => now,
    );
    const first = inbound.messages([message("B1")], "notify");
    const second = inbound.messages([message("B2")], "notify");
    await started;
    // B2 is queued behind B1, which is held: B2 has not started, whatever else runs meanwhile.
    expect(Bun.peek.status(second)).toBe("pending");
    expect(order).toEqual(["start B1"]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["start B1", "end B1", "start B2", "end B2"]);
  });

  test("our own sends, status posts, content-less stubs, groups and LID-only senders are not delivered; the rest of the batch is", async () => {
    const { inbound, delivered, logLines } = setup();
    const lidOnly = message("L1", { key: { remoteJid: "987654321012345@lid", id: "L1" } });
    await inbound.messages(
      [
        message("OWN", { key: { remoteJid: contact, id: "OWN", fromMe: true } }),
        message("STATUS", { key: { remoteJid: "status@broadcast", id: "STATUS", participant: contact } }),
        message("STUB", { message: null, messageStubType: proto.WebMessageInfo.StubType.CIPHERTEXT }),
        message("GROUP", { key: { remoteJid: "120363012345678901@g.us", id: "GROUP", participant: contact } }),
        lidOnly,
        message("OK"),
      ],
      "notify",
    );
    expect(delivered).toEqual([text("OK")]);
    expect(logLines).toEqual([
      { level: "warn", id: "GROUP", error: { name: "MessageMappingError", message: "group messages are not supported" }, msg: "inbound message skipped" },
      { level: "warn", id: "L1", error: { name: "MessageMappingError", message: "sender is known only by LID, without a phone number: 987654321012345@lid" }, msg: "inbound message skipped" },
    ] as unknown as typeof logLines);
  });

  test("a gateway that fails to take one message does not stop the next", async () => {
    const { inbound, delivered, logLines } = setup({ failMessage: (message) => message.networkId === "C1" });
    await inbound.messages([message("C1"), message("C2")], "notify");
    await inbound.messages([message("C3")], "notify");
    expect(delivered).toEqual([text("C2"), text("C3")]);
    expect(logLines).toEqual([{ level: "error", error: { name: "Error", message: "store unavailable" }, id: "C1", msg: "the gateway did not take an inbound message" }] as unknown as typeof logLines);
  });

  test("media is downloaded when its declared size is within the limit, and passed on without bytes when over it or when the download fails", async () => {
    const image = (id: string, fileLength: number | null) => message(id, { message: { imageMessage: { mimetype: "image/jpeg", caption: id, ...(fileLength === null ? {} : { fileLength }) } } });
    const { inbound, delivered, downloads } = setup();
    await inbound.messages([image("M1", 3), image("M2", inboundMediaBytesMax + 1), image("M3", null)], "notify");
    expect(downloads).toEqual(["M1", "M3"]);
    const imageMessage = (id: string, data: Uint8Array | null): InboundMessage => ({
      networkId: id,
      from: "+4915112345678",
      sentAt: 1_700_000_000_000,
      content: { type: "image", mimeType: "image/jpeg", data, fileName: null, caption: id },
    });
    expect(delivered).toEqual([imageMessage("M1", new Uint8Array([1, 2, 3])), imageMessage("M2", null), imageMessage("M3", new Uint8Array([1, 2, 3]))]);

    const failing = setup({ media: null });
    await failing.inbound.messages([image("M4", 10)], "notify");
    expect(failing.delivered).toEqual([imageMessage("M4", null)]);
  });

  test("text messages are never downloaded", async () => {
    const { inbound, downloads } = setup();
    await inbound.messages([message("T1")], "notify");
    expect(downloads).toEqual([]);
  });
});

describe("receipts from Baileys' status events", () => {
  test("messages.update and message-receipt.update become receipts, in order, after the messages before them", async () => {
    const { inbound, delivered, receipts } = setup();
    const own = (id: string) => ({ remoteJid: contact, id, fromMe: true });
    void inbound.messages([message("D1")], "notify");
    void inbound.statusUpdates([
      { key: own("S1"), update: { status: proto.WebMessageInfo.Status.DELIVERY_ACK } },
      { key: own("S2"), update: { status: proto.WebMessageInfo.Status.SERVER_ACK } },
    ]);
    await inbound.userReceipts([{ key: own("S3"), receipt: { userJid: contact, readTimestamp: 1_700_000_500 } }]);
    expect(delivered).toEqual([text("D1")]);
    expect(receipts).toEqual([
      { networkId: "S1", status: "delivered", at: now },
      { networkId: "S3", status: "read", at: 1_700_000_500_000 },
    ]);
  });
});

describe("reading a media stream with a bound", () => {
  test("a stream within the bound is read whole", async () => {
    expect(await readBounded(Readable.from([Buffer.from([1, 2]), Buffer.from([3])]), 3)).toEqual(new Uint8Array([1, 2, 3]));
    expect(await readBounded(Readable.from([]), 3)).toEqual(new Uint8Array([]));
  });

  test("a stream that sends more than the bound (whatever it declared) is stopped and destroyed", async () => {
    let produced = 0;
    const endless = new Readable({
      highWaterMark: 1024,
      read() {
        produced += 1;
        this.push(Buffer.alloc(1024));
      },
    });
    expect(await readBounded(endless, 10 * 1024)).toBeNull();
    expect(endless.destroyed).toBe(true);
    // Ten chunks reach the bound; a little read-ahead is the stream's own buffering.
    expect(produced).toBeLessThan(16);
  });
});
