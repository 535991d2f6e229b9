// Queues a project's messages: checks the recipient (E.164) and the content against the limits,
// stores the message durably (answered 202 only after), and makes a retried request with the
// same Idempotency-Key answer the message it queued the first time (a different body under the
// same key is a 422, so a key reused by mistake is noticed).
import { ApiError, notFound, validation } from "../http/errors.ts";
import { sha256Hex } from "../crypto.ts";
import type { StoredContent } from "./dispatcher.ts";
import { e164Pattern } from "./network/network.ts";
import type { GatewayMessage, MessageStore } from "./store/messages.ts";

export const textLengthMax = 4_096;
export const captionLengthMax = 1_024;
export const fileNameLengthMax = 255;
export const idempotencyKeyLengthMax = 255;
/** Media bytes per message, by type (what the messaging network itself accepts). */
export const mediaBytesMax = { image: 5 * 1024 * 1024, audio: 16 * 1024 * 1024, document: 16 * 1024 * 1024 } as const;
export const mediaTypes = ["image", "document", "audio"] as const;
const mimeTypePattern = /^[a-z]+\/[a-z0-9.+-]+$/i;

export interface SendRequest {
  to: string;
  text?: string;
  media?: { type: (typeof mediaTypes)[number]; mimeType: string; dataBase64: string; fileName?: string; caption?: string };
}

function decodeBase64(data: string): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length % 4 !== 0) throw validation("media.dataBase64: not base64");
  return Buffer.from(data, "base64");
}

/** The stored content and its size, or a 400 naming what is wrong. */
export function checkSendRequest(request: SendRequest): { content: StoredContent; bytes: number } {
  if (!e164Pattern.test(request.to)) throw validation(`to: "${request.to.slice(0, 40)}" is not an E.164 number (a plus sign and 8 to 15 digits, e.g. +4915112345678)`);
  if ((request.text === undefined) === (request.media === undefined)) throw validation("give exactly one of text and media");
  if (request.text !== undefined) {
    if (request.text.trim().length === 0) throw validation("text: must not be empty");
    if (request.text.length > textLengthMax) throw validation(`text: at most ${textLengthMax} characters`);
    return { content: { type: "text", text: request.text }, bytes: Buffer.byteLength(request.text) };
  }
  const media = request.media!;
  if (!mimeTypePattern.test(media.mimeType)) throw validation(`media.mimeType: "${media.mimeType.slice(0, 60)}" is not a MIME type`);
  const bytes = decodeBase64(media.dataBase64);
  if (bytes.length === 0) throw validation("media.dataBase64: empty");
  const max = mediaBytesMax[media.type];
  if (bytes.length > max) throw new ApiError(413, "payload_too_large", `media: a ${media.type} may be at most ${max} bytes; this one is ${bytes.length}`);
  if (media.type === "document" && !media.fileName) throw validation("media.fileName: a document needs a file name");
  return {
    content: { type: media.type, mimeType: media.mimeType, dataBase64: media.dataBase64, fileName: media.fileName ?? null, caption: media.caption ?? null },
    bytes: bytes.length,
  };
}

export class SendService {
  constructor(
    private readonly messages: MessageStore,
    private readonly now: () => number,
    private readonly onQueued: () => void,
  ) {}

  async send(projectId: string, request: SendRequest, idempotencyKey: string | null): Promise<{ message: GatewayMessage; created: boolean }> {
    if (idempotencyKey !== null && (idempotencyKey.length === 0 || idempotencyKey.length > idempotencyKeyLengthMax)) {
      throw validation(`Idempotency-Key: 1 to ${idempotencyKeyLengthMax} characters`);
    }
    const { content, bytes } = checkSendRequest(request);
    const requestHash = sha256Hex(JSON.stringify({ to: request.to, content }));
    const result = await this.messages.enqueue({
      id: Bun.randomUUIDv7(),
      projectId,
      idempotencyKey,
      requestHash,
      recipient: request.to,
      kind: content.type,
      content: JSON.stringify(content),
      contentBytes: bytes,
      createdAt: this.now(),
    });
    if (!result.created && result.message.requestHash !== requestHash) {
      throw new ApiError(422, "idempotency_key_reused", "this Idempotency-Key was used for a different message; use a new key for a new message");
    }
    if (result.created) this.onQueued();
    return result;
  }

  async get(projectId: string, id: string): Promise<GatewayMessage> {
    const message = await this.messages.ofProject(projectId, id);
    if (!message) throw notFound("message");
    return message;
  }

  async cancel(projectId: string, id: string): Promise<GatewayMessage> {
    const message = await this.get(projectId, id);
    const cancelled = await this.messages.cancel(projectId, id, this.now());
    if (!cancelled) throw new ApiError(409, "not_cancellable", `the message is ${message.state === "queued" ? "being sent" : message.state}; only a queued message can be cancelled`);
    return cancelled;
  }
}
