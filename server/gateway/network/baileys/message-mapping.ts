// Between the gateway's message shapes and Baileys': phone numbers and JIDs, outbound content,
// inbound WAMessages, and message status updates. Pure functions: what comes from the network is
// untrusted (any field may be missing, of the wrong type or absurdly long), so every field is
// checked here, and the network session only does I/O. Media bytes are downloaded by the session
// (the network boundary) and handed in.
import { getContentType, isJidBroadcast, isJidGroup, isJidNewsletter, isLidUser, jidDecode, normalizeMessageContent, proto } from "baileys";
import type { AnyMessageContent, MessageUserReceiptUpdate, WAMessage, WAMessageKey, WAMessageUpdate } from "baileys";
import { e164Pattern, type InboundContent, type InboundMessage, type OutboundContent, type Receipt } from "../network.ts";

/** WhatsApp's own limit on a text message; longer inbound text is cut here rather than passed on. */
export const inboundTextCharsMax = 65_536;
/** Captions are shorter in WhatsApp (1 024); this only bounds a hostile sender. */
export const inboundCaptionCharsMax = 4_096;
export const inboundFileNameCharsMax = 255;
/** WhatsApp message ids are 16 to 32 characters; anything longer is not a real id. */
export const networkIdCharsMax = 128;
export const mimeTypeCharsMax = 255;

const mimeTypePattern = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;
const fallbackMimeType = "application/octet-stream";
const phoneServer = "s.whatsapp.net";

/** Input from the network or the caller that cannot be mapped; the message is skipped or refused. */
export class MessageMappingError extends Error {
  override readonly name = "MessageMappingError";
}

/** `+4915112345678` → `4915112345678@s.whatsapp.net`. Only phone numbers: groups, broadcast lists and LIDs are refused. */
export function e164ToJid(phone: string): string {
  if (typeof phone !== "string") throw new MessageMappingError("recipient must be a phone number in E.164 (+4915…)");
  if (isJidGroup(phone)) throw new MessageMappingError("sending to group chats is not supported: give a phone number in E.164 (+4915…)");
  if (isJidBroadcast(phone)) throw new MessageMappingError("sending to broadcast lists or status is not supported: give a phone number in E.164 (+4915…)");
  if (isLidUser(phone)) throw new MessageMappingError("sending to a LID (WhatsApp's hidden-number id) is not supported: give a phone number in E.164 (+4915…)");
  if (!e164Pattern.test(phone)) throw new MessageMappingError(`recipient is not a phone number in E.164 (+4915…): ${bounded(phone, 32)}`);
  return `${phone.slice(1)}@${phoneServer}`;
}

/** `4915112345678@s.whatsapp.net` (with or without a device suffix `:3`) → `+4915112345678`; anything but a phone-number JID is refused. */
export function jidToE164(jid: string): string {
  const decoded = typeof jid === "string" ? jidDecode(jid) : undefined;
  if (!decoded || (decoded.server !== phoneServer && decoded.server !== "c.us")) throw new MessageMappingError(`not a phone-number JID: ${bounded(String(jid), 64)}`);
  const phone = `+${decoded.user}`;
  if (!e164Pattern.test(phone)) throw new MessageMappingError(`JID does not hold an E.164 number: ${bounded(jid, 64)}`);
  return phone;
}

/**
 * The sender of a one-to-one message as E.164. Baileys 7 addresses a chat either by phone
 * number or by LID (WhatsApp's hidden-number id) and then gives the other form as
 * `remoteJidAlt` when the server sent it; a message that carries no phone number at all cannot be
 * attributed to one and is refused.
 */
export function senderPhone(key: WAMessageKey): string {
  const remote = key.remoteJid;
  if (typeof remote !== "string" || remote === "") throw new MessageMappingError("message has no chat JID");
  if (isJidGroup(remote)) throw new MessageMappingError("group messages are not supported");
  if (isJidBroadcast(remote)) throw new MessageMappingError("broadcast and status messages are not supported");
  if (isJidNewsletter(remote)) throw new MessageMappingError("channel (newsletter) messages are not supported");
  for (const candidate of [remote, key.remoteJidAlt]) {
    if (typeof candidate === "string" && jidDecode(candidate)?.server === phoneServer) return jidToE164(candidate);
  }
  throw new MessageMappingError(`sender is known only by LID, without a phone number: ${bounded(remote, 64)}`);
}

export function toBaileysContent(content: OutboundContent): AnyMessageContent {
  // linkPreview null: otherwise Baileys fetches every URL in the text from the gateway's own
  // network to build a preview (slow, and a way into internal addresses).
  if (content.type === "text") return { text: content.text, linkPreview: null };
  // A view on the caller's bytes, not a copy: media can be megabytes.
  const bytes = Buffer.from(content.data.buffer, content.data.byteOffset, content.data.byteLength);
  const caption = content.caption === null ? {} : { caption: content.caption };
  switch (content.type) {
    case "image":
      return { image: bytes, mimetype: content.mimeType, ...caption };
    case "document":
      return { document: bytes, mimetype: content.mimeType, ...(content.fileName === null ? {} : { fileName: content.fileName }), ...caption };
    case "audio":
      // ptt false: an audio file, not a voice note recorded in the chat.
      return { audio: bytes, mimetype: content.mimeType, ptt: false };
  }
}

type MediaType = "image" | "document" | "audio" | "video" | "sticker";

const mediaFields: Record<MediaType, "imageMessage" | "documentMessage" | "audioMessage" | "videoMessage" | "stickerMessage"> = {
  image: "imageMessage",
  document: "documentMessage",
  audio: "audioMessage",
  video: "videoMessage",
  sticker: "stickerMessage",
};

/** The media a message carries and the size its sender declared, so the session can decide whether to download it. */
export function mediaOf(message: WAMessage): { type: MediaType; declaredBytes: number | null } | null {
  const content = normalizeMessageContent(message.message);
  if (!content) return null;
  for (const type of Object.keys(mediaFields) as MediaType[]) {
    const media = content[mediaFields[type]];
    if (media && typeof media === "object") return { type, declaredBytes: longToNumber(media.fileLength) };
  }
  return null;
}

/**
 * A WAMessage as the gateway's InboundMessage. `mediaBytes`: what the session downloaded (null
 * when it did not: too large, or the download failed). `receivedAt` stands in for a missing or
 * nonsensical timestamp.
 */
export function toInboundMessage(message: WAMessage, mediaBytes: Uint8Array | null, receivedAt: number): InboundMessage {
  const key = message.key;
  if (!key || typeof key !== "object") throw new MessageMappingError("message has no key");
  const networkId = key.id;
  if (typeof networkId !== "string" || networkId === "" || networkId.length > networkIdCharsMax) throw new MessageMappingError("message has no usable id");
  const seconds = longToNumber(message.messageTimestamp);
  return {
    networkId,
    from: senderPhone(key),
    sentAt: seconds !== null && seconds > 0 ? seconds * 1000 : receivedAt,
    content: inboundContent(message.message, mediaBytes),
  };
}

export function inboundContent(message: proto.IMessage | null | undefined, mediaBytes: Uint8Array | null): InboundContent {
  const content = normalizeMessageContent(message);
  if (!content) throw new MessageMappingError("message has no content");
  const text = optionalText(content.conversation, inboundTextCharsMax) ?? optionalText(content.extendedTextMessage?.text, inboundTextCharsMax);
  if (text !== null) return { type: "text", text };
  for (const type of Object.keys(mediaFields) as MediaType[]) {
    const media = content[mediaFields[type]] as { mimetype?: unknown; caption?: unknown; fileName?: unknown } | null | undefined;
    if (!media || typeof media !== "object") continue;
    return {
      type,
      mimeType: mimeType(media.mimetype),
      data: mediaBytes,
      fileName: type === "document" ? fileName(media.fileName) : null,
      caption: optionalText(media.caption, inboundCaptionCharsMax),
    };
  }
  const kind = getContentType(content);
  return { type: "other", description: kind ? `unsupported message type: ${bounded(kind, 64)}` : "empty message" };
}

/**
 * Status updates of messages this number sent (`messages.update`). Only delivery and read count;
 * PLAYED (a voice or video note played) implies read. Updates of messages others sent, and the
 * SERVER_ACK / PENDING / ERROR steps, are not receipts.
 */
export function receiptsFromStatusUpdates(updates: readonly WAMessageUpdate[], receivedAt: number): Receipt[] {
  const receipts: Receipt[] = [];
  for (const { key, update } of updates) {
    const networkId = ownMessageId(key);
    if (networkId === null || !update) continue;
    const status = statusToReceipt(update.status);
    if (status === null) continue;
    const seconds = longToNumber(update.messageTimestamp);
    receipts.push({ networkId, status, at: seconds !== null && seconds > 0 ? seconds * 1000 : receivedAt });
  }
  return receipts;
}

/** Per-recipient receipts (`message-receipt.update`, which Baileys emits for group and status chats). */
export function receiptsFromUserReceipts(updates: readonly MessageUserReceiptUpdate[]): Receipt[] {
  const receipts: Receipt[] = [];
  for (const { key, receipt } of updates) {
    const networkId = ownMessageId(key);
    if (networkId === null || !receipt) continue;
    const read = longToNumber(receipt.readTimestamp) ?? longToNumber(receipt.playedTimestamp);
    const delivered = longToNumber(receipt.receiptTimestamp);
    if (read !== null && read > 0) receipts.push({ networkId, status: "read", at: read * 1000 });
    else if (delivered !== null && delivered > 0) receipts.push({ networkId, status: "delivered", at: delivered * 1000 });
  }
  return receipts;
}

function ownMessageId(key: WAMessageKey | null | undefined): string | null {
  if (!key || key.fromMe !== true) return null;
  return typeof key.id === "string" && key.id !== "" && key.id.length <= networkIdCharsMax ? key.id : null;
}

function statusToReceipt(status: unknown): Receipt["status"] | null {
  switch (status) {
    case proto.WebMessageInfo.Status.DELIVERY_ACK:
      return "delivered";
    case proto.WebMessageInfo.Status.READ:
    case proto.WebMessageInfo.Status.PLAYED:
      return "read";
    default:
      return null;
  }
}

/** Protobuf int64 fields arrive as number or Long (an object with toNumber). */
function longToNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (value && typeof value === "object" && "toNumber" in value && typeof value.toNumber === "function") {
    const number = value.toNumber();
    return typeof number === "number" && Number.isFinite(number) ? number : null;
  }
  return null;
}

function optionalText(value: unknown, charsMax: number): string | null {
  if (typeof value !== "string" || value === "") return null;
  return value.length > charsMax ? value.slice(0, charsMax) : value;
}

function mimeType(value: unknown): string {
  if (typeof value !== "string") return fallbackMimeType;
  // WhatsApp sends parameters too (`audio/ogg; codecs=opus`); they are kept when the type itself is sound.
  const [essence = ""] = value.split(";");
  return value.length <= mimeTypeCharsMax && mimeTypePattern.test(essence.trim()) ? value : fallbackMimeType;
}

/** The sender chooses the name: keep only its last path segment, without control characters, bounded. */
function fileName(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const base = value.split(/[\\/]/).pop() ?? "";
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  if (clean === "" || clean === "." || clean === "..") return null;
  return clean.length > inboundFileNameCharsMax ? clean.slice(0, inboundFileNameCharsMax) : clean;
}

function bounded(text: string, charsMax: number): string {
  return text.length > charsMax ? `${text.slice(0, charsMax)}…` : text;
}
