// One gateway session on the simulated network: frames in, SessionEvents out, as network.ts
// documents them. Send answers resolve their promise at once; every other frame is handled in
// arrival order, one after the other, so the gateway sees `paired` before the messages the
// network pushes right after it, inbound messages in sequence, and `disconnected` last.
import type { AuthStateStore, DisconnectReason, InboundContent, NetworkSession, OutboundContent, SendResult, SessionEvents } from "../network.ts";
import { closeCodes, type ClientFrame, type MessageFrame, type SendResultFrame, type ServerFrame, type WireInboundContent, type WireOutboundContent } from "./protocol.ts";

/** Names of this network's entries in the instance's auth state. */
export const authNames = { credential: "sim.credential", phone: "sim.phone" } as const;

/** The code this side closes with when it ends the connection itself. */
const normalClosure = 1000;

export class SimulatedSession implements NetworkSession {
  private nextRequestId = 1;
  private readonly pendingSends = new Map<number, (result: SendResult) => void>();
  private inOrderChain: Promise<void> = Promise.resolve();
  /** close() or logout() was called: the caller knows why the session ends, so no further events. */
  private ended = false;
  private loggingOut = false;
  /** Why this side closed the connection on its own (the credential could not be stored). */
  private failure: string | null = null;
  private readonly closed: Promise<void>;

  constructor(
    private readonly socket: WebSocket,
    private readonly auth: AuthStateStore,
    private readonly events: SessionEvents,
    onClosed: () => void,
  ) {
    this.closed = new Promise((resolve) => {
      socket.addEventListener("close", (event) => {
        this.connectionClosed(event.code, event.reason);
        onClosed();
        resolve();
      }, { once: true });
    });
    socket.addEventListener("message", (event) => this.frameArrived(event.data as string));
  }

  /** Starts the session: resumes with `credential`, or asks for pairing codes without one. */
  hello(credential: string | null): void {
    this.transmit({ type: "hello", credential });
  }

  send(to: string, content: OutboundContent, messageId: string): Promise<SendResult> {
    if (this.socket.readyState !== WebSocket.OPEN) return Promise.resolve({ ok: false, transient: true, reason: "not connected to the simulated network" });
    const requestId = this.nextRequestId++;
    return new Promise((resolve) => {
      this.pendingSends.set(requestId, resolve);
      this.transmit({ type: "send", requestId, messageId, to, content: wireContent(content) });
    });
  }

  async close(): Promise<void> {
    this.ended = true;
    if (this.socket.readyState === WebSocket.CONNECTING || this.socket.readyState === WebSocket.OPEN) this.socket.close(normalClosure, "closed by the gateway");
    await this.closed;
  }

  /** Asks the network to void the credential (it closes the connection in answer), then forgets it here. If the
   *  connection is already gone the network cannot be told; the credential is forgotten all the same. */
  async logout(): Promise<void> {
    this.ended = true;
    this.loggingOut = true;
    if (this.socket.readyState === WebSocket.OPEN) this.transmit({ type: "logout" });
    else if (this.socket.readyState === WebSocket.CONNECTING) this.socket.close(normalClosure, "logged out by the gateway");
    await this.closed;
    await this.auth.clear();
  }

  private transmit(frame: ClientFrame): void {
    this.socket.send(JSON.stringify(frame));
  }

  private frameArrived(raw: string): void {
    const frame = JSON.parse(raw) as ServerFrame;
    if (frame.type === "sendResult") this.answerSend(frame);
    else this.inOrder(() => this.handle(frame));
  }

  private inOrder(step: () => Promise<void> | void): void {
    this.inOrderChain = this.inOrderChain.then(step).catch((error: unknown) => console.error("simulated network session: an event handler threw", error));
  }

  private answerSend(frame: SendResultFrame): void {
    const resolve = this.pendingSends.get(frame.requestId);
    this.pendingSends.delete(frame.requestId);
    resolve?.(frame.ok ? { ok: true, duplicate: frame.duplicate } : { ok: false, transient: frame.transient, reason: frame.reason });
  }

  private async handle(frame: Exclude<ServerFrame, SendResultFrame>): Promise<void> {
    switch (frame.type) {
      case "qr":
        if (!this.ended) this.events.qr(frame.code);
        return;
      case "paired":
        return this.paired(frame.phone, frame.credential);
      case "connected":
        if (!this.ended) this.events.connected();
        return;
      case "message":
        return this.report(() => this.events.message(inboundMessage(frame)), { type: "ack", networkId: frame.networkId });
      case "receipt":
        return this.report(() => this.events.receipt({ networkId: frame.networkId, status: frame.status, at: frame.at }), { type: "ack", networkId: frame.networkId, status: frame.status });
    }
  }

  private async paired(phone: string, credential: string): Promise<void> {
    // Stored even after close(), so the instance can resume; not while logging out, which forgets it.
    if (this.loggingOut) return;
    try {
      await this.auth.write(new Map([[authNames.credential, credential], [authNames.phone, phone]]));
    } catch (error) {
      // A device the gateway cannot resume is no use: end the connection, and pairing starts over.
      this.failure = `the credential could not be stored: ${error instanceof Error ? error.message : String(error)}`;
      this.socket.close(normalClosure, "credential not stored");
      return;
    }
    if (this.ended) return;
    this.events.paired(phone);
    this.events.connected();
  }

  /** Reports a pushed message or receipt and acknowledges it once the gateway stored it. Unacknowledged
   *  (handler rejected, or the connection closed first), the network pushes it again on the next connection. */
  private async report(handler: () => Promise<void>, ack: ClientFrame): Promise<void> {
    if (this.ended || this.socket.readyState !== WebSocket.OPEN) return;
    try {
      await handler();
    } catch {
      return;
    }
    if (this.socket.readyState === WebSocket.OPEN) this.transmit(ack);
  }

  private connectionClosed(code: number, reason: string): void {
    for (const resolve of this.pendingSends.values()) resolve({ ok: false, transient: true, reason: "the connection closed before the network answered" });
    this.pendingSends.clear();
    const disconnect = this.disconnectReason(code, reason);
    this.inOrder(async () => {
      if (disconnect.kind === "logged_out") await this.auth.clear();
      if (!this.ended) this.events.disconnected(disconnect);
    });
  }

  private disconnectReason(code: number, reason: string): DisconnectReason {
    if (this.failure !== null) return { kind: "connection_lost", message: this.failure };
    if (code === closeCodes.loggedOut) return { kind: "logged_out", message: reason };
    if (code === closeCodes.replaced) return { kind: "replaced", message: reason };
    return { kind: "connection_lost", message: reason === "" ? `the connection to the simulated network closed (code ${code})` : reason };
  }
}

function wireContent(content: OutboundContent): WireOutboundContent {
  if (content.type === "text") return content;
  return { type: content.type, mimeType: content.mimeType, dataBase64: Buffer.from(content.data).toString("base64"), fileName: content.fileName, caption: content.caption };
}

function inboundMessage(frame: MessageFrame) {
  return { networkId: frame.networkId, from: frame.from, sentAt: frame.sentAt, content: inboundContent(frame.content) };
}

function inboundContent(content: WireInboundContent): InboundContent {
  if (content.type === "text") return content;
  const data = content.dataBase64 === null ? null : new Uint8Array(Buffer.from(content.dataBase64, "base64"));
  return { type: content.type, mimeType: content.mimeType, data, fileName: content.fileName, caption: content.caption };
}
