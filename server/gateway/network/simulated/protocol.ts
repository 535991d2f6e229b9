// The simulated network's socket protocol: JSON text frames between a gateway session (the
// adapter, simulated-network.ts) and the simulated network server (network-server.ts). Media
// bytes travel as base64. How a session ends is told by the close code, so the adapter has one
// place that decides what `disconnected` reports.
import type { ReceiptStatus } from "../network.ts";

/** The path of the gateway-facing WebSocket on the simulated network's server. */
export const socketPath = "/socket";

/** Close codes the network ends a session with (4000-4999 is the range left to applications). */
export const closeCodes = {
  /** The credential is void (the phone logged the device out) or unknown to the network. */
  loggedOut: 4401,
  /** Another connection opened with the same credential. */
  replaced: 4409,
  /** The control API dropped the connection; reconnecting with the credential resumes. */
  dropped: 4000,
  /** The peer sent a frame the protocol does not allow. */
  protocolError: 4400,
} as const;

export type WireOutboundContent =
  | { type: "text"; text: string }
  | { type: "image" | "document" | "audio"; mimeType: string; dataBase64: string; fileName: string | null; caption: string | null };

export type WireInboundContent =
  | { type: "text"; text: string }
  | { type: "image" | "document" | "audio" | "video" | "sticker"; mimeType: string; dataBase64: string | null; fileName: string | null; caption: string | null };

/** Frames a gateway session sends. */
export type ClientFrame =
  /** First frame of every connection: with a credential it resumes, without one it starts pairing. */
  | { type: "hello"; credential: string | null }
  | { type: "send"; requestId: number; messageId: string; to: string; content: WireOutboundContent }
  /** Acknowledges a pushed message (no status) or receipt (its status) once the gateway stored it. */
  | { type: "ack"; networkId: string; status?: ReceiptStatus }
  /** Unlinks this device: the network voids the credential and closes with `loggedOut`. */
  | { type: "logout" };

export type SendResultFrame =
  | { type: "sendResult"; requestId: number; ok: true; duplicate: boolean }
  | { type: "sendResult"; requestId: number; ok: false; transient: boolean; reason: string };

export type MessageFrame = { type: "message"; networkId: string; from: string; sentAt: number; content: WireInboundContent };
export type ReceiptFrame = { type: "receipt"; networkId: string; status: ReceiptStatus; at: number };

/** Frames the network sends. */
export type ServerFrame =
  | { type: "qr"; code: string }
  | { type: "paired"; phone: string; credential: string }
  | { type: "connected"; phone: string }
  | SendResultFrame
  | MessageFrame
  | ReceiptFrame;

/** Pushed frames wait in the network under this key until acknowledged. */
export function pendingKey(networkId: string, status?: ReceiptStatus): string {
  return status === undefined ? `message:${networkId}` : `receipt:${status}:${networkId}`;
}
