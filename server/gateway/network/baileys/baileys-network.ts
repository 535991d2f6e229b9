// The WhatsApp network through Baileys (WhatsApp Web multi-device): one socket per instance,
// opened with the instance's auth state from the gateway's store.
//
// Acknowledgements. Baileys acknowledges inbound messages itself: it decrypts a message, sends
// the delivery receipt to WhatsApp, and only then emits `messages.upsert` (Socket/messages-recv
// in 7.0.0-rc14), without waiting for its listeners. So with Baileys the network's promise
// "acknowledged only once stored" does not hold: a crash between Baileys' receipt and the
// gateway's store loses that message (WhatsApp does not deliver it again). The session does what
// is left to it: it hands messages over one at a time in arrival order and awaits each
// `events.message` before the next. Receipts for our own messages (delivered, read) are read from
// `messages.update` and `message-receipt.update`; read receipts for messages we receive are not
// sent (the gateway does not mark anything read).
//
// At-most-once. A send carries the gateway's message id as WhatsApp's message key id. WhatsApp
// clients keep one message per key id, so a send repeated after a crash (same id) does not show
// twice on the recipient's phone; Baileys cannot tell whether the server already had the id, so
// a send never reports `duplicate: true`. Whether a number is on WhatsApp is not checked per
// send (`onWhatsApp` is a server round trip per message).
import makeWASocket, { Browsers, downloadMediaMessage, isJidStatusBroadcast, makeCacheableSignalKeyStore } from "baileys";
import type { ConnectionState, MessageUpsertType, MessageUserReceiptUpdate, WAMessage, WAMessageUpdate, WASocket } from "baileys";
import type { MessagingNetwork, NetworkSession, OpenSessionInput, OutboundContent, Receipt, SendResult } from "../network.ts";
import { loadBaileysAuthState, type BaileysAuthState } from "./auth-state.ts";
import { makeBaileysLogger, type BaileysLogger, type BaileysLogLevel } from "./logger.ts";
import { e164ToJid, jidToE164, MessageMappingError, mediaOf, receiptsFromStatusUpdates, receiptsFromUserReceipts, toBaileysContent, toInboundMessage } from "./message-mapping.ts";
import { socketEnd } from "./disconnect-reason.ts";
import { sendFailure } from "./send-result.ts";

/** Inbound media above this size is passed on without its bytes (type, mimetype, caption still go). */
export const inboundMediaBytesMax = 16 * 1024 * 1024;
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

type MediaBytes = Uint8Array | null;

class BaileysSession implements NetworkSession {
  private socket: WASocket | null = null;
  private open = false;
  /** Set by close() and logout(): the socket's end is then ours, not a disconnection to report. */
  private ending = false;
  /** A session started without a paired number reports `paired` when its first connection opens. */
  private pairing: boolean;
  /** Credential writes in order; `paired` waits for them ("auth state is already saved"). */
  private credsSaved: Promise<void> = Promise.resolve();
  /** Inbound messages and receipts are handed over one at a time, in arrival order. */
  private delivery: Promise<void> = Promise.resolve();

  constructor(
    private readonly input: OpenSessionInput,
    private readonly auth: BaileysAuthState,
    private readonly logger: BaileysLogger,
    private readonly options: BaileysNetworkOptions,
    private readonly forget: () => void,
  ) {
    this.pairing = !auth.state.creds.me?.id;
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
      this.onConnectionUpdate(socket, update).catch((error: unknown) => this.logger.error({ error }, "handling a connection update failed"));
    });
    socket.ev.on("messages.upsert", ({ messages, type }) => this.enqueue(() => this.onMessages(socket, messages, type)));
    socket.ev.on("messages.update", (updates) => this.enqueue(() => this.onReceipts(receiptsFromStatusUpdates(updates as WAMessageUpdate[], Date.now()))));
    socket.ev.on("message-receipt.update", (updates) => this.enqueue(() => this.onReceipts(receiptsFromUserReceipts(updates as MessageUserReceiptUpdate[]))));
  }

  async send(to: string, content: OutboundContent, messageId: string): Promise<SendResult> {
    try {
      const jid = e164ToJid(to);
      const socket = this.socket;
      if (!socket || !this.open) return { ok: false, transient: true, reason: "session not connected" };
      await socket.sendMessage(jid, toBaileysContent(content), { messageId });
      return { ok: true, duplicate: false };
    } catch (error) {
      return sendFailure(error);
    }
  }

  async close(): Promise<void> {
    this.ending = true;
    this.open = false;
    this.forget();
    if (this.socket) await endSocket(this.socket);
    await this.credsSaved;
  }

  /** Unlinks on the phone when connected (otherwise there is no one to tell); forgets the auth state either way. */
  async logout(): Promise<void> {
    this.ending = true;
    const socket = this.socket;
    try {
      if (socket && this.open) await socket.logout();
    } catch (error) {
      this.logger.warn({ error }, "unlinking on the phone failed; forgetting the auth state anyway");
    } finally {
      if (socket) await endSocket(socket);
      this.open = false;
      this.forget();
      await this.credsSaved;
      await this.auth.clear();
    }
  }

  private async onConnectionUpdate(socket: WASocket, update: Partial<ConnectionState>): Promise<void> {
    if (socket !== this.socket || this.ending) return;
    if (update.qr) this.input.events.qr(update.qr);
    if (update.connection === "open") {
      this.open = true;
      if (this.pairing) {
        this.pairing = false;
        await this.credsSaved;
        this.input.events.paired(jidToE164(this.auth.state.creds.me?.id ?? ""));
      }
      this.input.events.connected();
    }
    if (update.connection === "close") await this.onClose(update.lastDisconnect?.error);
  }

  private async onClose(error: Error | undefined): Promise<void> {
    this.open = false;
    const end = socketEnd(error);
    await this.credsSaved;
    if (end.action === "reconnect") {
      this.connect();
      return;
    }
    this.forget();
    if (end.forgetAuth) await this.auth.clear();
    this.input.events.disconnected(end.reason);
  }

  private enqueue(task: () => Promise<void>): void {
    this.delivery = this.delivery.then(task).catch((error: unknown) => this.logger.error({ error }, "handing an event to the gateway failed"));
  }

  private async onMessages(socket: WASocket, messages: WAMessage[], type: MessageUpsertType): Promise<void> {
    // "notify": arrived now; "append": arrived while this device was offline (Baileys marks those
    // so) — both are new to the gateway. Our own sends (fromMe), status posts and stubs without
    // content (a message that failed to decrypt; WhatsApp retries it under the same id) are not.
    if (type !== "notify" && type !== "append") return;
    for (const message of messages) {
      const remote = message.key?.remoteJid;
      if (!message.key || message.key.fromMe || !message.message || (typeof remote === "string" && isJidStatusBroadcast(remote))) continue;
      let mapped;
      try {
        mapped = toInboundMessage(message, await this.downloadMedia(socket, message), Date.now());
      } catch (error) {
        if (!(error instanceof MessageMappingError)) throw error;
        this.logger.warn({ error, id: message.key.id }, "inbound message skipped");
        continue;
      }
      try {
        await this.input.events.message(mapped);
      } catch (error) {
        // Baileys has acknowledged it already (see the top of this file): nothing can ask for it again.
        this.logger.error({ error, id: mapped.networkId }, "the gateway did not take an inbound message");
      }
    }
  }

  private async onReceipts(receipts: Receipt[]): Promise<void> {
    for (const receipt of receipts) {
      try {
        await this.input.events.receipt(receipt);
      } catch (error) {
        this.logger.error({ error, id: receipt.networkId }, "the gateway did not take a receipt");
      }
    }
  }

  /** The network boundary for inbound media: bounded in size and time; any failure leaves the message without bytes. */
  private async downloadMedia(socket: WASocket, message: WAMessage): Promise<MediaBytes> {
    const media = mediaOf(message);
    if (!media || (media.declaredBytes !== null && media.declaredBytes > inboundMediaBytesMax)) return null;
    try {
      const stream = await downloadMediaMessage(
        message,
        "stream",
        { options: { signal: AbortSignal.timeout(inboundMediaDownloadTimeoutMs) } },
        { reuploadRequest: socket.updateMediaMessage, logger: this.logger },
      );
      const chunks: Buffer[] = [];
      let bytes = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        bytes += chunk.byteLength;
        if (bytes > inboundMediaBytesMax) {
          stream.destroy();
          this.logger.warn({ id: message.key.id, declaredBytes: media.declaredBytes }, "inbound media larger than declared and than the limit; passed on without bytes");
          return null;
        }
        chunks.push(chunk);
      }
      return new Uint8Array(Buffer.concat(chunks));
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
  socket.ws.emit("error", new Error("socket ended by the gateway"));
}
