import { describe, expect, test } from "bun:test";
import { proto } from "baileys";
import type { WAMessage, WAMessageUpdate, MessageUserReceiptUpdate } from "baileys";
import {
  e164ToJid,
  inboundCaptionCharsMax,
  inboundContent,
  inboundFileNameCharsMax,
  inboundTextCharsMax,
  jidToE164,
  MessageMappingError,
  mediaOf,
  receiptsFromStatusUpdates,
  receiptsFromUserReceipts,
  senderPhone,
  toBaileysContent,
  toInboundMessage,
} from "../../../server/gateway/network/baileys/message-mapping.ts";

const receivedAt = 1_800_000_000_000;
const contact = "4915112345678@s.whatsapp.net";

function webMessage(fields: Record<string, unknown>): WAMessage {
  return proto.WebMessageInfo.fromObject({ key: { remoteJid: contact, id: "3EB0C0FFEE", fromMe: false }, messageTimestamp: 1_700_000_000, ...fields }) as WAMessage;
}

describe("phone numbers and JIDs", () => {
  test("E.164 becomes a phone-number JID and back, device suffixes dropped", () => {
    expect(e164ToJid("+4915112345678")).toBe("4915112345678@s.whatsapp.net");
    expect(jidToE164("4915112345678@s.whatsapp.net")).toBe("+4915112345678");
    expect(jidToE164("4915112345678:12@s.whatsapp.net")).toBe("+4915112345678");
    expect(jidToE164("4915112345678@c.us")).toBe("+4915112345678");
  });

  test("sending to groups, broadcast lists, status, LIDs and malformed numbers is refused with a reason", () => {
    expect(() => e164ToJid("120363012345678901@g.us")).toThrow(new MessageMappingError("sending to group chats is not supported: give a phone number in E.164 (+4915…)"));
    expect(() => e164ToJid("status@broadcast")).toThrow(new MessageMappingError("sending to broadcast lists or status is not supported: give a phone number in E.164 (+4915…)"));
    expect(() => e164ToJid("1234@broadcast")).toThrow(MessageMappingError);
    expect(() => e164ToJid("123456789012345@lid")).toThrow(new MessageMappingError("sending to a LID (WhatsApp's hidden-number id) is not supported: give a phone number in E.164 (+4915…)"));
    expect(() => e164ToJid("4915112345678")).toThrow(new MessageMappingError("recipient is not a phone number in E.164 (+4915…): 4915112345678"));
    expect(() => e164ToJid("+0123456789")).toThrow(MessageMappingError);
    expect(() => e164ToJid("+4915112345678@s.whatsapp.net")).toThrow(MessageMappingError);
    expect(() => e164ToJid(`+49${"1".repeat(10_000)}`)).toThrow(new MessageMappingError(`recipient is not a phone number in E.164 (+4915…): +49${"1".repeat(29)}…`));
    expect(() => e164ToJid(undefined as unknown as string)).toThrow(new MessageMappingError("recipient must be a phone number in E.164 (+4915…)"));
  });

  test("only phone-number JIDs map to E.164", () => {
    expect(() => jidToE164("123456789@lid")).toThrow(new MessageMappingError("not a phone-number JID: 123456789@lid"));
    expect(() => jidToE164("120363012345678901@g.us")).toThrow(MessageMappingError);
    expect(() => jidToE164("no-at-sign")).toThrow(MessageMappingError);
    expect(() => jidToE164("0123@s.whatsapp.net")).toThrow(new MessageMappingError("JID does not hold an E.164 number: 0123@s.whatsapp.net"));
    expect(() => jidToE164(`${"9".repeat(5_000)}@s.whatsapp.net`)).toThrow(MessageMappingError);
  });

  test("the sender is the phone number whichever side of a LID-addressed chat carries it", () => {
    expect(senderPhone({ remoteJid: contact })).toBe("+4915112345678");
    expect(senderPhone({ remoteJid: "987654321012345@lid", remoteJidAlt: "4915112345678@s.whatsapp.net" })).toBe("+4915112345678");
    expect(senderPhone({ remoteJid: "4915112345678:2@s.whatsapp.net", remoteJidAlt: "987654321012345@lid" })).toBe("+4915112345678");
    expect(() => senderPhone({ remoteJid: "987654321012345@lid" })).toThrow(new MessageMappingError("sender is known only by LID, without a phone number: 987654321012345@lid"));
    expect(() => senderPhone({ remoteJid: "120363012345678901@g.us", participant: contact })).toThrow(new MessageMappingError("group messages are not supported"));
    expect(() => senderPhone({ remoteJid: "status@broadcast", participant: contact })).toThrow(new MessageMappingError("broadcast and status messages are not supported"));
    expect(() => senderPhone({ remoteJid: "120363000000000000@newsletter" })).toThrow(new MessageMappingError("channel (newsletter) messages are not supported"));
    expect(() => senderPhone({})).toThrow(new MessageMappingError("message has no chat JID"));
    expect(() => senderPhone({ remoteJid: 42 as unknown as string })).toThrow(new MessageMappingError("message has no chat JID"));
  });
});

describe("outbound content", () => {
  const bytes = new Uint8Array([0, 1, 2, 3, 4, 5]).subarray(1, 4);

  test("text, without a link preview fetched by the gateway", () => {
    expect(toBaileysContent({ type: "text", text: "Hallo http://10.0.0.1/admin" })).toEqual({ text: "Hallo http://10.0.0.1/admin", linkPreview: null });
  });

  test("image with caption, and without", () => {
    expect(toBaileysContent({ type: "image", mimeType: "image/png", data: bytes, fileName: "a.png", caption: "Look" })).toEqual({ image: Buffer.from([1, 2, 3]), mimetype: "image/png", caption: "Look" });
    expect(toBaileysContent({ type: "image", mimeType: "image/png", data: bytes, fileName: null, caption: null })).toEqual({ image: Buffer.from([1, 2, 3]), mimetype: "image/png" });
  });

  test("document with mimetype, file name and caption", () => {
    expect(toBaileysContent({ type: "document", mimeType: "application/pdf", data: bytes, fileName: "invoice.pdf", caption: "Your invoice" })).toEqual({
      document: Buffer.from([1, 2, 3]),
      mimetype: "application/pdf",
      fileName: "invoice.pdf",
      caption: "Your invoice",
    });
    expect(toBaileysContent({ type: "document", mimeType: "application/pdf", data: bytes, fileName: null, caption: null })).toEqual({ document: Buffer.from([1, 2, 3]), mimetype: "application/pdf" });
  });

  test("audio is a file, not a voice note, and carries no caption", () => {
    expect(toBaileysContent({ type: "audio", mimeType: "audio/mpeg", data: bytes, fileName: "a.mp3", caption: "ignored" })).toEqual({ audio: Buffer.from([1, 2, 3]), mimetype: "audio/mpeg", ptt: false });
  });

  test("media bytes are a view on the caller's buffer, not a copy", () => {
    const content = toBaileysContent({ type: "image", mimeType: "image/png", data: bytes, fileName: null, caption: null }) as { image: Buffer };
    expect(content.image.buffer).toBe(bytes.buffer);
  });
});

describe("inbound messages", () => {
  test("plain text (conversation) with a Long timestamp", () => {
    const message = webMessage({ message: { conversation: "Hi there" } });
    expect(typeof message.messageTimestamp).toBe("object");
    expect(toInboundMessage(message, null, receivedAt)).toEqual({ networkId: "3EB0C0FFEE", from: "+4915112345678", sentAt: 1_700_000_000_000, content: { type: "text", text: "Hi there" } });
  });

  test("extended text, inside a disappearing-message wrapper, with a number timestamp", () => {
    const message = proto.WebMessageInfo.create({
      key: { remoteJid: "987654321012345@lid", id: "ABCDEF", fromMe: false },
      messageTimestamp: 1_700_000_001,
      message: { ephemeralMessage: { message: { extendedTextMessage: { text: "A link https://example.com" } } } },
    }) as WAMessage;
    message.key.remoteJidAlt = contact;
    expect(toInboundMessage(message, null, receivedAt)).toEqual({ networkId: "ABCDEF", from: "+4915112345678", sentAt: 1_700_000_001_000, content: { type: "text", text: "A link https://example.com" } });
  });

  test("a missing or zero timestamp falls back to the time of arrival", () => {
    expect(toInboundMessage(webMessage({ messageTimestamp: null, message: { conversation: "x" } }), null, receivedAt).sentAt).toBe(receivedAt);
    expect(toInboundMessage(webMessage({ messageTimestamp: 0, message: { conversation: "x" } }), null, receivedAt).sentAt).toBe(receivedAt);
    const nan = proto.WebMessageInfo.create({ key: { remoteJid: contact, id: "N" }, messageTimestamp: Number.NaN, message: { conversation: "x" } }) as WAMessage;
    expect(toInboundMessage(nan, null, receivedAt).sentAt).toBe(receivedAt);
  });

  test("image with caption and downloaded bytes", () => {
    const data = new Uint8Array([0xff, 0xd8, 0xff]);
    const message = webMessage({ message: { imageMessage: { mimetype: "image/jpeg", caption: "Receipt", fileLength: 3 } } });
    expect(mediaOf(message)).toEqual({ type: "image", declaredBytes: 3 });
    expect(toInboundMessage(message, data, receivedAt)).toEqual({
      networkId: "3EB0C0FFEE",
      from: "+4915112345678",
      sentAt: 1_700_000_000_000,
      content: { type: "image", mimeType: "image/jpeg", data, fileName: null, caption: "Receipt" },
    });
  });

  test("video, audio (voice note), sticker, each with its mimetype and no bytes when not downloaded", () => {
    expect(inboundContent(proto.Message.fromObject({ videoMessage: { mimetype: "video/mp4", caption: "Clip" } }), null)).toEqual({ type: "video", mimeType: "video/mp4", data: null, fileName: null, caption: "Clip" });
    expect(inboundContent(proto.Message.fromObject({ audioMessage: { mimetype: "audio/ogg; codecs=opus", ptt: true } }), null)).toEqual({ type: "audio", mimeType: "audio/ogg; codecs=opus", data: null, fileName: null, caption: null });
    expect(inboundContent(proto.Message.fromObject({ stickerMessage: { mimetype: "image/webp" } }), null)).toEqual({ type: "sticker", mimeType: "image/webp", data: null, fileName: null, caption: null });
  });

  test("document with file name, and a document with caption in its wrapper", () => {
    expect(inboundContent(proto.Message.fromObject({ documentMessage: { mimetype: "application/pdf", fileName: "invoice.pdf", fileLength: 2_000 } }), null)).toEqual({
      type: "document",
      mimeType: "application/pdf",
      data: null,
      fileName: "invoice.pdf",
      caption: null,
    });
    const wrapped = proto.Message.fromObject({ documentWithCaptionMessage: { message: { documentMessage: { mimetype: "text/csv", fileName: "a.csv", caption: "Export" } } } });
    expect(inboundContent(wrapped, new Uint8Array([65]))).toEqual({ type: "document", mimeType: "text/csv", data: new Uint8Array([65]), fileName: "a.csv", caption: "Export" });
    expect(mediaOf(webMessage({ message: wrapped }))).toEqual({ type: "document", declaredBytes: null });
  });

  test("anything else is 'other' with its kind named", () => {
    expect(inboundContent(proto.Message.fromObject({ locationMessage: { degreesLatitude: 52.5, degreesLongitude: 13.4 } }), null)).toEqual({ type: "other", description: "unsupported message type: locationMessage" });
    expect(inboundContent(proto.Message.fromObject({ reactionMessage: { text: "👍" } }), null)).toEqual({ type: "other", description: "unsupported message type: reactionMessage" });
    expect(inboundContent(proto.Message.fromObject({ conversation: "" }), null)).toEqual({ type: "other", description: "unsupported message type: conversation" });
    expect(inboundContent(proto.Message.create({}), null)).toEqual({ type: "other", description: "empty message" });
    expect(mediaOf(webMessage({ message: { conversation: "x" } }))).toBeNull();
    expect(mediaOf(webMessage({}))).toBeNull();
  });

  test("a message without content, key or usable id is refused", () => {
    expect(() => toInboundMessage(webMessage({}), null, receivedAt)).toThrow(new MessageMappingError("message has no content"));
    expect(() => toInboundMessage({ message: { conversation: "x" } } as unknown as WAMessage, null, receivedAt)).toThrow(new MessageMappingError("message has no key"));
    expect(() => toInboundMessage(webMessage({ key: { remoteJid: contact, id: "" }, message: { conversation: "x" } }), null, receivedAt)).toThrow(new MessageMappingError("message has no usable id"));
    expect(() => toInboundMessage(webMessage({ key: { remoteJid: contact }, message: { conversation: "x" } }), null, receivedAt)).toThrow(new MessageMappingError("message has no usable id"));
    expect(() => toInboundMessage(webMessage({ key: { remoteJid: contact, id: "x".repeat(129) }, message: { conversation: "x" } }), null, receivedAt)).toThrow(new MessageMappingError("message has no usable id"));
    expect(() => toInboundMessage(webMessage({ key: { remoteJid: "120363012345678901@g.us", id: "G1", participant: contact }, message: { conversation: "x" } }), null, receivedAt)).toThrow(
      new MessageMappingError("group messages are not supported"),
    );
  });

  test("hostile fields: absurd lengths are cut, a non-string caption or file name is dropped, a bad mimetype becomes octet-stream", () => {
    const long = "a".repeat(inboundTextCharsMax + 10);
    expect(inboundContent(proto.Message.fromObject({ conversation: long }), null)).toEqual({ type: "text", text: long.slice(0, inboundTextCharsMax) });

    const image = proto.Message.create({ imageMessage: proto.Message.ImageMessage.create({ mimetype: "image/png" }) });
    (image.imageMessage as Record<string, unknown>).caption = { toString: () => "evil" };
    expect(inboundContent(image, null)).toEqual({ type: "image", mimeType: "image/png", data: null, fileName: null, caption: null });
    (image.imageMessage as Record<string, unknown>).caption = "c".repeat(inboundCaptionCharsMax * 3);
    (image.imageMessage as Record<string, unknown>).mimetype = 42;
    expect(inboundContent(image, null)).toEqual({ type: "image", mimeType: "application/octet-stream", data: null, fileName: null, caption: "c".repeat(inboundCaptionCharsMax) });

    const document = (fileName: unknown, mimetype: unknown) => {
      const message = proto.Message.create({ documentMessage: proto.Message.DocumentMessage.create({}) });
      Object.assign(message.documentMessage as object, { fileName, mimetype });
      return inboundContent(message, null);
    };
    expect(document("../../etc/passwd", "text/plain")).toEqual({ type: "document", mimeType: "text/plain", data: null, fileName: "passwd", caption: null });
    expect(document("C:\\Users\\x\\evil\u0000.exe\n", "application/x-msdownload")).toEqual({ type: "document", mimeType: "application/x-msdownload", data: null, fileName: "evil.exe", caption: null });
    expect(document("../..", "<script>/x")).toEqual({ type: "document", mimeType: "application/octet-stream", data: null, fileName: null, caption: null });
    expect(document(["a.pdf"], `text/${"p".repeat(300)}`)).toEqual({ type: "document", mimeType: "application/octet-stream", data: null, fileName: null, caption: null });
    expect(document("n".repeat(10_000) + ".pdf", undefined)).toEqual({ type: "document", mimeType: "application/octet-stream", data: null, fileName: "n".repeat(inboundFileNameCharsMax), caption: null });
  });

  test("a hostile declared size is not a number", () => {
    const message = webMessage({ message: { videoMessage: { mimetype: "video/mp4" } } });
    (message.message!.videoMessage as Record<string, unknown>).fileLength = "99999999999";
    expect(mediaOf(message)).toEqual({ type: "video", declaredBytes: null });
  });
});

describe("receipts", () => {
  const { Status } = proto.WebMessageInfo;
  const own = (id: string) => ({ remoteJid: contact, id, fromMe: true });

  test("status updates of our own messages: delivered, read, played as read; other steps ignored", () => {
    const updates: WAMessageUpdate[] = [
      { key: own("M1"), update: { status: Status.DELIVERY_ACK, messageTimestamp: 1_700_000_100 } },
      { key: own("M2"), update: { status: Status.READ, messageTimestamp: 1_700_000_200 } },
      { key: own("M3"), update: { status: Status.PLAYED } },
      { key: own("M4"), update: { status: Status.SERVER_ACK, messageTimestamp: 1 } },
      { key: own("M5"), update: { status: Status.PENDING } },
      { key: own("M6"), update: { status: Status.ERROR } },
      { key: own("M7"), update: { messageStubParameters: ["x"] } },
      { key: { remoteJid: contact, id: "THEIRS", fromMe: false }, update: { status: Status.READ } },
      { key: { remoteJid: contact, fromMe: true }, update: { status: Status.READ } },
      { key: own("x".repeat(200)), update: { status: Status.READ } },
      { key: own("M8"), update: { status: 99 as proto.WebMessageInfo.Status } },
      { key: own("M9"), update: null as unknown as WAMessageUpdate["update"] },
      { key: null as unknown as WAMessageUpdate["key"], update: { status: Status.READ } },
    ];
    expect(receiptsFromStatusUpdates(updates, receivedAt)).toEqual([
      { networkId: "M1", status: "delivered", at: 1_700_000_100_000 },
      { networkId: "M2", status: "read", at: 1_700_000_200_000 },
      { networkId: "M3", status: "read", at: receivedAt },
    ]);
  });

  test("per-user receipts: read and played as read, delivery as delivered, of our own messages only", () => {
    const updates: MessageUserReceiptUpdate[] = [
      { key: own("R1"), receipt: { userJid: contact, receiptTimestamp: 1_700_000_300 } },
      { key: own("R2"), receipt: { userJid: contact, readTimestamp: 1_700_000_400 } },
      { key: own("R3"), receipt: { userJid: contact, playedTimestamp: 1_700_000_500 } },
      { key: own("R4"), receipt: { userJid: contact } },
      { key: own("R5"), receipt: { userJid: contact, readTimestamp: 0 } },
      { key: { remoteJid: contact, id: "THEIRS", fromMe: false }, receipt: { readTimestamp: 1_700_000_600 } },
      { key: own("R6"), receipt: null as unknown as MessageUserReceiptUpdate["receipt"] },
    ];
    expect(receiptsFromUserReceipts(updates)).toEqual([
      { networkId: "R1", status: "delivered", at: 1_700_000_300_000 },
      { networkId: "R2", status: "read", at: 1_700_000_400_000 },
      { networkId: "R3", status: "read", at: 1_700_000_500_000 },
    ]);
  });
});
