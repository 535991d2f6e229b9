// The simulated network itself: pairing, credentials, sessions, sends with their dedupe,
// inbound messages and receipts waiting for acknowledgement, phones' inboxes. Everything is in
// memory: a restart of the simulated network forgets every device, credential and message (a
// gateway then sees its stored credential answered as logged out and pairs again).
// Per message the work is a few Map operations and one frame: no timers, no scans.
import { e164Pattern, type ReceiptStatus } from "../network.ts";
import { ControlError } from "./control-error.ts";
import { PairingCodes } from "./pairing-codes.ts";
import { newPhone, type InboxEntry, type Phone, type Refusal, type Session } from "./phones.ts";
import { closeCodes, pendingKey, type ClientFrame, type MessageFrame, type ReceiptFrame, type WireInboundContent, type WireOutboundContent } from "./protocol.ts";

export const defaultQrRotateIntervalMs = 20_000;

const defaultRefusalReasons: Record<Refusal["mode"], string> = {
  transient: "rate limited by the simulated network",
  permanent: "number banned by the simulated network",
};

export interface DeviceSummary {
  phone: string;
  connected: boolean;
  sessions: number;
}

export interface NetworkStats {
  devices: number;
  connectedSessions: number;
  messagesAccepted: number;
  duplicatesRefused: number;
  inboundPendingAck: number;
  receiptsPendingAck: number;
}

export interface InboxMessage {
  /** The id the gateway sent it under; receipts carry it. */
  networkId: string;
  /** The same id under the name the gateway gives it. */
  messageId: string;
  from: string;
  content: WireOutboundContent;
  receivedAt: number;
  deliveredAt: number | null;
  readAt: number | null;
}

export class SimulatedNetworkState {
  private readonly phones = new Map<string, Phone>();
  /** Phones with a linked device, for listing devices without walking every phone. */
  private readonly linked = new Map<string, Phone>();
  private readonly credentials = new Map<string, Phone>();
  private readonly voidedCredentials = new Set<string>();
  private readonly codes = new PairingCodes<Session>();
  /** `${sender}\n${messageId}` of every message accepted: the network keeps one per pair. */
  private readonly sentIds = new Set<string>();
  private readonly sessions = new Set<Session>();
  private nextSessionId = 1;
  private readonly counts = { connectedSessions: 0, messagesAccepted: 0, duplicatesRefused: 0, inboundPendingAck: 0, receiptsPendingAck: 0 };

  constructor(private readonly qrRotateIntervalMs: number) {}

  // --- gateway sessions -------------------------------------------------------------------

  openSession(transport: Pick<Session, "push" | "close">): Session {
    const session: Session = { id: this.nextSessionId++, phone: null, pairingCode: null, rotation: null, helloReceived: false, push: transport.push, close: transport.close };
    this.sessions.add(session);
    return session;
  }

  /** The socket closed (either side): the session's code stops working, its device is free. */
  sessionClosed(session: Session): void {
    this.sessions.delete(session);
    this.stopPairing(session);
    this.unbind(session);
  }

  receive(session: Session, frame: ClientFrame): void {
    if (frame.type === "hello") {
      if (session.helloReceived) return this.end(session, closeCodes.protocolError, "hello sent twice");
      session.helloReceived = true;
      if (frame.credential === null) this.startPairing(session);
      else this.resume(session, frame.credential);
    } else if (frame.type === "send") this.send(session, frame);
    else if (frame.type === "ack") this.ack(session, frame.networkId, frame.status);
    else this.logoutFromGateway(session);
  }

  private startPairing(session: Session): void {
    this.showNewCode(session);
    session.rotation = setInterval(() => this.showNewCode(session), this.qrRotateIntervalMs);
  }

  private showNewCode(session: Session): void {
    if (session.pairingCode !== null) this.codes.expire(session.pairingCode);
    session.pairingCode = this.codes.issue(session);
    session.push({ type: "qr", code: session.pairingCode });
  }

  private stopPairing(session: Session): void {
    if (session.rotation !== null) clearInterval(session.rotation);
    session.rotation = null;
    if (session.pairingCode !== null) this.codes.expire(session.pairingCode);
    session.pairingCode = null;
  }

  private resume(session: Session, credential: string): void {
    const phone = this.credentials.get(credential);
    if (phone === undefined) {
      const why = this.voidedCredentials.has(credential) ? "the phone logged this device out" : "unknown credential (the simulated network forgets devices when it restarts)";
      return this.end(session, closeCodes.loggedOut, why);
    }
    this.bind(session, phone);
    session.push({ type: "connected", phone: phone.number });
    this.pushPending(session, phone);
  }

  /** A phone scans a session's code: the network links a new device to it, bound to that session. */
  scan(phoneNumber: string, code: string): { phone: string } {
    const phone = this.phone(phoneNumber);
    const session = this.codes.take(code);
    this.stopPairing(session);
    if (phone.device !== null) this.unlink(phone, "the phone linked another device");
    const credential = `sim-cred:${crypto.randomUUID()}`;
    phone.device = { credential, sessions: new Set() };
    this.credentials.set(credential, phone);
    this.linked.set(phone.number, phone);
    this.bind(session, phone);
    session.push({ type: "paired", phone: phone.number, credential });
    this.pushPending(session, phone);
    return { phone: phone.number };
  }

  private bind(session: Session, phone: Phone): void {
    const device = phone.device!;
    for (const older of device.sessions) this.end(older, closeCodes.replaced, "another connection opened with this credential");
    session.phone = phone;
    device.sessions.add(session);
    this.counts.connectedSessions++;
  }

  private unbind(session: Session): void {
    if (session.phone?.device?.sessions.delete(session)) this.counts.connectedSessions--;
    session.phone = null;
  }

  /** Ends a session now (its device is free at once) and closes its socket. */
  private end(session: Session, code: number, reason: string): void {
    this.sessionClosed(session);
    session.close(code, reason);
  }

  /** Voids the phone's device: its credential answers logged out from now on. */
  private unlink(phone: Phone, reason: string): void {
    const device = phone.device!;
    for (const session of device.sessions) this.end(session, closeCodes.loggedOut, reason);
    this.credentials.delete(device.credential);
    this.voidedCredentials.add(device.credential);
    this.linked.delete(phone.number);
    phone.device = null;
  }

  private logoutFromGateway(session: Session): void {
    if (session.phone === null) return this.end(session, closeCodes.loggedOut, "logged out before pairing");
    this.unlink(session.phone, "logged out by the gateway");
  }

  // --- sends, receipts, inbound -------------------------------------------------------------

  private send(session: Session, frame: Extract<ClientFrame, { type: "send" }>): void {
    const { requestId, messageId, to, content } = frame;
    const sender = session.phone;
    if (sender === null) return session.push({ type: "sendResult", requestId, ok: false, transient: true, reason: "the session is not paired" });
    const sentKey = `${sender.number}\n${messageId}`;
    if (this.sentIds.has(sentKey)) {
      this.counts.duplicatesRefused++;
      return session.push({ type: "sendResult", requestId, ok: true, duplicate: true });
    }
    if (!e164Pattern.test(to)) return session.push({ type: "sendResult", requestId, ok: false, transient: false, reason: `recipient ${JSON.stringify(to)} is not an E.164 number` });
    if (sender.refusal !== null) return session.push({ type: "sendResult", requestId, ok: false, transient: sender.refusal.mode === "transient", reason: sender.refusal.reason });
    this.sentIds.add(sentKey);
    this.counts.messagesAccepted++;
    const recipient = this.phone(to);
    const entry: InboxEntry = { networkId: messageId, from: sender.number, content, receivedAt: Date.now(), deliveredAt: null, readAt: null };
    recipient.inbox.push(entry);
    if (!recipient.inboxById.has(messageId)) recipient.inboxById.set(messageId, entry);
    // The answer goes before the receipt, as a network answers the send before the phone gets it.
    session.push({ type: "sendResult", requestId, ok: true, duplicate: false });
    if (recipient.online) this.delivered(entry);
    else recipient.undelivered.push(entry);
  }

  private delivered(entry: InboxEntry): void {
    entry.deliveredAt = Date.now();
    this.enqueue(this.phone(entry.from), { type: "receipt", networkId: entry.networkId, status: "delivered", at: entry.deliveredAt });
  }

  private enqueue(phone: Phone, frame: MessageFrame | ReceiptFrame): void {
    phone.pending.set(pendingKey(frame.networkId, frame.type === "receipt" ? frame.status : undefined), frame);
    if (frame.type === "message") this.counts.inboundPendingAck++;
    else this.counts.receiptsPendingAck++;
    for (const session of phone.device?.sessions ?? []) session.push(frame);
  }

  private pushPending(session: Session, phone: Phone): void {
    for (const frame of phone.pending.values()) session.push(frame);
  }

  private ack(session: Session, networkId: string, status: ReceiptStatus | undefined): void {
    if (session.phone === null || !session.phone.pending.delete(pendingKey(networkId, status))) return;
    if (status === undefined) this.counts.inboundPendingAck--;
    else this.counts.receiptsPendingAck--;
  }

  // --- the control API's actions ------------------------------------------------------------

  /** A contact sends a message to a paired number. */
  sendFromPhone(from: string, to: string, content: WireInboundContent): { networkId: string } {
    const recipient = this.phone(to);
    if (recipient.device === null) throw new ControlError(404, "not_paired", `${to} has no linked gateway device`);
    const networkId = `sim-msg:${crypto.randomUUID()}`;
    this.enqueue(recipient, { type: "message", networkId, from, sentAt: Date.now(), content });
    return { networkId };
  }

  inbox(phoneNumber: string): InboxMessage[] {
    return (this.phones.get(phoneNumber)?.inbox ?? []).map((entry) => ({ networkId: entry.networkId, messageId: entry.networkId, from: entry.from, content: entry.content, receivedAt: entry.receivedAt, deliveredAt: entry.deliveredAt, readAt: entry.readAt }));
  }

  read(phoneNumber: string, networkId: string): { networkId: string; readAt: number } {
    const phone = this.phones.get(phoneNumber);
    const entry = phone?.inboxById.get(networkId);
    if (phone === undefined || entry === undefined) throw new ControlError(404, "unknown_message", `${phoneNumber} received no message ${JSON.stringify(networkId)}`);
    if (!phone.online) throw new ControlError(409, "phone_offline", `${phoneNumber} is offline: set it online to read`);
    if (entry.readAt === null) {
      entry.readAt = Date.now();
      this.enqueue(this.phone(entry.from), { type: "receipt", networkId, status: "read", at: entry.readAt });
    }
    return { networkId, readAt: entry.readAt };
  }

  setOnline(phoneNumber: string, online: boolean): { phone: string; online: boolean } {
    const phone = this.phone(phoneNumber);
    phone.online = online;
    if (online) {
      const waiting = phone.undelivered;
      phone.undelivered = [];
      for (const entry of waiting) this.delivered(entry);
    }
    return { phone: phone.number, online };
  }

  refuse(phoneNumber: string, mode: Refusal["mode"] | null, reason: string | undefined): { phone: string; refusal: Refusal | null } {
    const phone = this.phone(phoneNumber);
    phone.refusal = mode === null ? null : { mode, reason: reason ?? defaultRefusalReasons[mode] };
    return { phone: phone.number, refusal: phone.refusal };
  }

  drop(phoneNumber: string): { phone: string; dropped: number } {
    const device = this.device(phoneNumber);
    if (device.sessions.size === 0) throw new ControlError(409, "not_connected", `${phoneNumber}'s device has no connected session`);
    const dropped = device.sessions.size;
    for (const session of device.sessions) this.end(session, closeCodes.dropped, "connection dropped by the simulated network");
    return { phone: phoneNumber, dropped };
  }

  logoutFromPhone(phoneNumber: string): { phone: string; loggedOut: true } {
    this.device(phoneNumber);
    this.unlink(this.phone(phoneNumber), "the phone logged this device out");
    return { phone: phoneNumber, loggedOut: true };
  }

  devices(): DeviceSummary[] {
    return [...this.linked.values()].map((phone) => ({ phone: phone.number, connected: phone.device!.sessions.size > 0, sessions: phone.device!.sessions.size }));
  }

  stats(): NetworkStats {
    return { devices: this.linked.size, ...this.counts };
  }

  /** Stops every pairing rotation and closes every session (the server is going away). */
  shutdown(): void {
    for (const session of this.sessions) this.end(session, 1001, "the simulated network is shutting down");
  }

  private device(phoneNumber: string) {
    const device = this.phones.get(phoneNumber)?.device;
    if (device === undefined || device === null) throw new ControlError(404, "unknown_device", `${phoneNumber} has no linked gateway device`);
    return device;
  }

  /** The phone with this number, created on first mention (every phone exists, online by default). */
  private phone(phoneNumber: string): Phone {
    let phone = this.phones.get(phoneNumber);
    if (phone === undefined) {
      phone = newPhone(phoneNumber);
      this.phones.set(phoneNumber, phone);
    }
    return phone;
  }
}
