// The phones of the simulated network: every E.164 number it has seen, as a physical phone
// (online or not, an inbox of what gateway numbers sent it) and, once it has scanned a pairing
// code, the gateway device linked to it with the pushes that device has not yet acknowledged.
import type { MessageFrame, ReceiptFrame, ServerFrame, WireOutboundContent } from "./protocol.ts";

/** What the network does to a number's sends, as the control API set it. */
export interface Refusal {
  mode: "transient" | "permanent";
  reason: string;
}

/** A gateway connection, as the network sees it. */
export interface Session {
  readonly id: number;
  /** The number this session is connected as; null while it is pairing or before its hello. */
  phone: Phone | null;
  /** The code it shows while pairing. */
  pairingCode: string | null;
  rotation: ReturnType<typeof setInterval> | null;
  helloReceived: boolean;
  push(frame: ServerFrame): void;
  close(code: number, reason: string): void;
}

/** The gateway's linked device on a phone: one per phone (a new scan replaces it). */
export interface Device {
  credential: string;
  /** Connected sessions: at most one, as a second connection replaces the first. */
  sessions: Set<Session>;
}

/** A message a gateway number sent, as the recipient's phone holds it. */
export interface InboxEntry {
  networkId: string;
  from: string;
  content: WireOutboundContent;
  receivedAt: number;
  deliveredAt: number | null;
  readAt: number | null;
}

export interface Phone {
  readonly number: string;
  online: boolean;
  refusal: Refusal | null;
  readonly inbox: InboxEntry[];
  /** The inbox by id (gateways choose unique ids; on a clash the first message keeps the id). */
  readonly inboxById: Map<string, InboxEntry>;
  /** Received while offline: their `delivered` receipts go out when the phone comes online. */
  undelivered: InboxEntry[];
  device: Device | null;
  /** Messages and receipts for this number's device not yet acknowledged, in arrival order, by pendingKey. */
  readonly pending: Map<string, MessageFrame | ReceiptFrame>;
}

export function newPhone(number: string): Phone {
  return { number, online: true, refusal: null, inbox: [], inboxById: new Map(), undelivered: [], device: null, pending: new Map() };
}
