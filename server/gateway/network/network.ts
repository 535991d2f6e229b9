// The messaging network as the gateway sees it: one session per paired number (instance),
// opened with that number's persisted auth state, sending messages and reporting what arrives.
// Two implementations ship: Baileys (WhatsApp Web multi-device, what production uses) and a
// simulated network (tests, demos, load tests). Nothing here knows HTTP or the gateway's store.

/** What the gateway sends: text, or one media item with its bytes. */
export type OutboundContent =
  | { type: "text"; text: string }
  | { type: "image" | "document" | "audio"; mimeType: string; data: Uint8Array; fileName: string | null; caption: string | null };

/** What arrives from a contact. Media bytes are carried when the network hands them over. */
export type InboundContent =
  | { type: "text"; text: string }
  | { type: "image" | "document" | "audio" | "video" | "sticker"; mimeType: string; data: Uint8Array | null; fileName: string | null; caption: string | null }
  | { type: "other"; description: string };

export interface InboundMessage {
  /** The network's id of the message; the same message delivered twice carries the same id. */
  networkId: string;
  /** The sender, E.164 (`+4915…`). */
  from: string;
  /** When the sender sent it (epoch ms). */
  sentAt: number;
  content: InboundContent;
}

export type ReceiptStatus = "delivered" | "read";

export interface Receipt {
  /** The id the message was sent with (the gateway chooses it: see NetworkSession.send). */
  networkId: string;
  status: ReceiptStatus;
  at: number;
}

export type DisconnectReason =
  /** The connection dropped; reopening with the same auth state resumes the session. */
  | { kind: "connection_lost"; message: string }
  /** The phone unlinked this device: the auth state is void and a new QR scan is needed. */
  | { kind: "logged_out"; message: string }
  /** Another connection opened with the same auth state and the network closed this one. */
  | { kind: "replaced"; message: string };

/**
 * What a session reports. The promise-returning handlers must settle only once the gateway has
 * stored what they report: the session acknowledges an inbound message to the network only
 * after `message` resolves, so a crash before that makes the network deliver it again.
 */
export interface SessionEvents {
  /** A pairing code to show as a QR code (each new code replaces the previous one). */
  qr(code: string): void;
  /** The phone scanned the code; `phone` is the paired number in E.164. Auth state is already saved. */
  paired(phone: string): void;
  /** The session is open and can send. */
  connected(): void;
  disconnected(reason: DisconnectReason): void;
  message(message: InboundMessage): Promise<void>;
  receipt(receipt: Receipt): Promise<void>;
}

/**
 * One instance's persisted auth state (credentials and signal keys), kept in the gateway's
 * store so a restart, or another replica taking the instance over, resumes without a new scan.
 * Values are opaque strings to the store; names are the implementation's own.
 */
export interface AuthStateStore {
  read(names: readonly string[]): Promise<Map<string, string>>;
  /** Writes every entry in one transaction; a null value deletes the name. */
  write(entries: ReadonlyMap<string, string | null>): Promise<void>;
  clear(): Promise<void>;
}

export type SendResult =
  /** The network took the message; `duplicate` when it already had one with this id (not sent again). */
  | { ok: true; duplicate: boolean }
  /** Refused. `transient`: trying again later may work (rate limit, connection); else never (bad recipient, ban). */
  | { ok: false; transient: boolean; reason: string };

export interface NetworkSession {
  /**
   * Sends `content` to `to` (E.164) under the id `messageId`, chosen by the gateway and stable
   * across attempts and replicas: the network keeps one message per id, so a send repeated
   * after a crash is not delivered twice.
   */
  send(to: string, content: OutboundContent, messageId: string): Promise<SendResult>;
  /** Closes the connection, keeping the auth state (the session can be reopened). */
  close(): Promise<void>;
  /** Unlinks the device from the phone and forgets the auth state (a new scan is needed). */
  logout(): Promise<void>;
}

export interface OpenSessionInput {
  instanceId: string;
  auth: AuthStateStore;
  events: SessionEvents;
}

export interface MessagingNetwork {
  readonly name: "baileys" | "simulated";
  /**
   * Opens a session. With saved auth state it reconnects (events: connected); without, it
   * starts pairing (events: qr, then paired and connected once the phone scans).
   */
  open(input: OpenSessionInput): Promise<NetworkSession>;
  /** Closes every session this network opened and releases what it holds. */
  close(): Promise<void>;
}

/** E.164: a plus sign and 8 to 15 digits, the first not zero. */
export const e164Pattern = /^\+[1-9]\d{7,14}$/;
