// Checks of what arrives from outside the simulated network (socket frames, control bodies):
// each check names the field at fault, so a refusal says what to fix.
import type { ClientFrame, WireInboundContent, WireOutboundContent } from "./protocol.ts";

export class WireShapeError extends Error {}

type Fields = Record<string, unknown>;

const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/;
const outboundMediaTypes = ["image", "document", "audio"] as const;
const inboundMediaTypes = ["image", "document", "audio", "video", "sticker"] as const;

export function fields(value: unknown, where: string): Fields {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new WireShapeError(`${where} must be a JSON object`);
  return value as Fields;
}

export function text(object: Fields, name: string, where: string): string {
  const value = object[name];
  if (typeof value !== "string") throw new WireShapeError(`${where}.${name} must be a string`);
  return value;
}

function optionalText(object: Fields, name: string, where: string): string | null {
  return object[name] === undefined || object[name] === null ? null : text(object, name, where);
}

function oneOf<T extends string>(object: Fields, name: string, allowed: readonly T[], where: string): T {
  const value = object[name];
  if (!allowed.includes(value as T)) throw new WireShapeError(`${where}.${name} must be one of ${allowed.join(", ")}`);
  return value as T;
}

function base64(object: Fields, name: string, where: string): string {
  const value = text(object, name, where);
  if (!base64Pattern.test(value)) throw new WireShapeError(`${where}.${name} must be base64`);
  return value;
}

function media<T extends string>(value: unknown, types: readonly T[], where: string) {
  const object = fields(value, where);
  return { type: oneOf(object, "type", types, where), mimeType: text(object, "mimeType", where), dataBase64: base64(object, "dataBase64", where), fileName: optionalText(object, "fileName", where), caption: optionalText(object, "caption", where) };
}

export function outboundContent(value: unknown): WireOutboundContent {
  const object = fields(value, "content");
  if (object.type === "text") return { type: "text", text: text(object, "text", "content") };
  return media(object, outboundMediaTypes, "content");
}

/** A contact's message in a control body: `text`, or `media` with its bytes. */
export function inboundContent(body: Fields): WireInboundContent {
  if ((body.text === undefined) === (body.media === undefined)) throw new WireShapeError("body needs exactly one of text and media");
  if (body.media === undefined) return { type: "text", text: text(body, "text", "body") };
  return media(body.media, inboundMediaTypes, "body.media");
}

/** The frame's type and, for a send, its request id: what is needed to answer even a malformed frame. */
export function clientFrameHeader(raw: string): { frame: Fields; type: ClientFrame["type"] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new WireShapeError("frame is not JSON");
  }
  const frame = fields(parsed, "frame");
  return { frame, type: oneOf(frame, "type", ["hello", "send", "ack", "logout"] as const, "frame") };
}

export function requestId(frame: Fields): number {
  if (!Number.isSafeInteger(frame.requestId)) throw new WireShapeError("frame.requestId must be an integer");
  return frame.requestId as number;
}

export function clientFrame(frame: Fields, type: ClientFrame["type"]): ClientFrame {
  switch (type) {
    case "hello":
      return { type, credential: optionalText(frame, "credential", "frame") };
    case "send":
      return { type, requestId: requestId(frame), messageId: text(frame, "messageId", "frame"), to: text(frame, "to", "frame"), content: outboundContent(frame.content) };
    case "ack":
      return frame.status === undefined ? { type, networkId: text(frame, "networkId", "frame") } : { type, networkId: text(frame, "networkId", "frame"), status: oneOf(frame, "status", ["delivered", "read"] as const, "frame") };
    case "logout":
      return { type };
  }
}
