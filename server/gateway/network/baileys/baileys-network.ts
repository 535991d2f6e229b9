// The WhatsApp network through Baileys (WhatsApp Web multi-device): one socket per instance,
// opened with the instance's auth state from the gateway's store.
//
// Acknowledgements. Baileys acknowledges inbound messages itself: it decrypts a message, sends
// the delivery receipt to WhatsApp, and only then emits `messages.upsert` (Socket/messages-recv
// in 7.0.0-rc14), without waiting for its listeners. So with Baileys the network's promise
// "acknowledged only once stored" does not hold: a crash between Baileys' receipt and the
// gateway's store loses that message (WhatsApp does not deliver it again). The session does
// what is left to it: it hands messages over one at a time in arrival order and awaits each
// `events.message` before the next (inbound-delivery.ts). Receipts for our own messages
// (delivered, read) come from `messages.update` and `message-receipt.update`; read receipts for
// messages we receive are not sent (the gateway marks nothing read).
//
// At-most-once. A send carries the gateway's message id as WhatsApp's message key id. WhatsApp
// clients keep one message per key id, so a send repeated after a crash (same id) does not show
// twice on the recipient's phone; Baileys cannot tell whether the server already had the id, so
// a send never reports `duplicate: true`. Whether a number is on WhatsApp is not checked per
// send (`onWhatsApp` is a server round trip per message).
import makeWASocket, { Browsers, downloadMediaMessage, makeCacheableSignalKeyStore } from "baileys";
import type { WAMessage, WASocket } from "baileys";
import type { MessagingNetwork, NetworkSession, OpenSessionInput, OutboundContent, SendResult } from "../network.ts";
import { loadBaileysAuthState, type BaileysAuthState } from "./auth-state.ts";
import { ConnectionEvents } from "./connection-events.ts";
import { makeBaileysLogger, type BaileysLogger, type BaileysLogLevel } from "./logger.ts";
import { InboundDelivery, inboundMediaBytesMax, readBounded } from "./inbound-delivery.ts";
import { e164ToJid, toBaileysContent } from "./message-mapping.ts";
import { sendFailure } from "./send-result.ts";

/** A media download that takes longer is abandoned (the message goes on without bytes). */
export const inboundMediaDownloadTimeoutMs = 60_000;

export interface BaileysNetworkOptions {
  /** Baileys' `waWebSocketUrl`; tests point it at a local server. Default: WhatsApp's. */
  webSocketUrl?: string;
  /** What the phone's "Linked devices" list shows for this gateway. */
  browserName?: string;
  logLevel?: BaileysLogLevel;
}

const defaultBrowserName = "Chrome";

export class BaileysNetwork implements MessagingNetwork {
  readonly name = "baileys" as const;
  private readonly sessions = new Set<BaileysSession>();

  constructor(private readonly options: BaileysNetworkOptions = {}) {}

  async open(input: OpenSessionInput): Promise<NetworkSession> {
    const auth = await loadBaileysAuthState(input.auth);
    const logger = makeBaileysLogger(this.options.logLevel ?? "silent", { instance: input.instanceId });
    const session = new BaileysSession(input, auth, logger, this.options, () => this.sessions.delete(session));
    this.sessions.add(session);
    session.connect();
    return session;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions].map((session) => session.close()));
  }
}

class BaileysSession implements NetworkSession {
  private socket: WASocket | null = null;
  /** Credential writes in order; `paired` waits for them ("auth state is already saved"). */
  private credsSaved: Promise<void> = Promise.resolve();
  private readonly connection: ConnectionEvents;

  constructor(
    private readonly input: OpenSessionInput,
    private readonly auth: BaileysAuthState,
    private readonly logger: BaileysLogger,
    private readonly options: BaileysNetworkOptions,
    private readonly forget: () => void,
  ) {
    this.connection = new ConnectionEvents(
      input.events,
      {
        credsSaved: () => this.credsSaved,
        meId: () => auth.state.creds.me?.id,
        reconnect: () => this.connect(),
        forgetAuth: () => auth.clear(),
        over: forget,
      },
      !auth.state.creds.me?.id,
    );
  }

  connect(): void {
    const socket = makeWASocket({
      auth: { creds: this.auth.state.creds, keys: makeCacheableSignalKeyStore(this.auth.state.keys, this.logger) },
      logger: this.logger,
      browser: Browsers.ubuntu(this.options.browserName ?? defaultBrowserName),
      printQRInTerminal: false,
      // The gateway is a server: it neither appears online to contacts nor pulls years of history.
      markOnlineOnConnect: false,
      syncFullHistory: false,
      ...(this.options.webSocketUrl === undefined ? {} : { waWebSocketUrl: this.options.webSocketUrl }),
    });
    this.socket = socket;
    socket.ev.on("creds.update", () => {
      this.credsSaved = this.credsSaved.then(() => this.auth.saveCreds()).catch((error: unknown) => this.logger.error({ error }, "saving credentials failed"));
    });
    socket.ev.on("connection.update", (update) => {
      // A socket replaced by a reconnect may still report its own end.
      if (socket !== this.socket) return;
      this.connection.update(update).catch((error: unknown) => this.logger.error({ error }, "handling a connection update failed"));
    });
    const inbound = new InboundDelivery(this.input.events, this.logger, (message) => this.downloadMedia(socket, message));
    socket.ev.on("messages.upsert", ({ messages, type }) => void inbound.messages(messages, type));
    socket.ev.on("messages.update", (updates) => void inbound.statusUpdates(updates));
    socket.ev.on("message-receipt.update", (updates) => void inbound.userReceipts(updates));
  }

  async send(to: string, content: OutboundContent, messageId: string): Promise<SendResult> {
    try {
      const jid = e164ToJid(to);
      const socket = this.socket;
      if (!socket || !this.connection.isOpen) return { ok: false, transient: true, reason: "session not connected" };
      await socket.sendMessage(jid, toBaileysContent(content), { messageId });
      return { ok: true, duplicate: false };
    } catch (error) {
      return sendFailure(error);
    }
  }

  async close(): Promise<void> {
    this.connection.stopReporting();
    this.forget();
    if (this.socket) await endSocket(this.socket);
    await this.credsSaved;
  }

  /** Unlinks on the phone when connected (otherwise there is no one to tell); forgets the auth state either way. */
  async logout(): Promise<void> {
    const wasOpen = this.connection.isOpen;
    this.connection.stopReporting();
    const socket = this.socket;
    try {
      if (socket && wasOpen) await socket.logout();
    } catch (error) {
      this.logger.warn({ error }, "unlinking on the phone failed; forgetting the auth state anyway");
    } finally {
      if (socket) await endSocket(socket);
      this.forget();
      await this.credsSaved;
      await this.auth.clear();
    }
  }

  /** The network boundary for inbound media: bounded in time here, in size by readBounded; any failure leaves the message without bytes. */
  private async downloadMedia(socket: WASocket, message: WAMessage): Promise<Uint8Array | null> {
    try {
      const stream = await downloadMediaMessage(
        message,
        "stream",
        { options: { signal: AbortSignal.timeout(inboundMediaDownloadTimeoutMs) } },
        { reuploadRequest: socket.updateMediaMessage, logger: this.logger },
      );
      const bytes = await readBounded(stream, inboundMediaBytesMax);
      if (bytes === null) this.logger.warn({ id: message.key.id }, "inbound media larger than declared and than the limit; passed on without bytes");
      return bytes;
    } catch (error) {
      this.logger.warn({ error, id: message.key.id }, "inbound media download failed; passed on without bytes");
      return null;
    }
  }
}

/**
 * Ends a socket and settles what it still waits for. Baileys' end() removes the WebSocket's
 * 'close' listeners before it closes it, so a handshake step still waiting for the server's
 * answer is never told and keeps its connect timer (20 s) running, holding the process open
 * (7.0.0-rc14). Those waits also listen for 'error', which end() leaves in place and, once the
 * socket has ended, ignores for itself.
 */
async function endSocket(socket: WASocket): Promise<void> {
  await socket.end(undefined);
  // Without a listener, emitting 'error' would throw; Baileys registers its own when it creates the socket.
  if (socket.ws.listenerCount("error") > 0) socket.ws.emit("error", new Error("socket ended by the gateway"));
}
