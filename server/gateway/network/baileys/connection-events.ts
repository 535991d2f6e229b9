// A session's connection as the gateway hears of it, from Baileys' `connection.update`: QR codes,
// `paired` once after a scan, `connected`, and one `disconnected` when the session is over.
import type { ConnectionState } from "baileys";
import type { SessionEvents } from "../network.ts";
import { socketEnd } from "./disconnect-reason.ts";
import { jidToE164 } from "./message-mapping.ts";

export interface ConnectionHooks {
  /** Resolves once every credential write so far is stored. */
  credsSaved(): Promise<void>;
  /** The paired device's JID (`creds.me.id`), set by Baileys once the phone has scanned. */
  meId(): string | undefined;
  /** Opens a new socket with the same auth state. */
  reconnect(): void;
  forgetAuth(): Promise<void>;
  /** The session is over; the network stops tracking it. */
  over(): void;
}

export class ConnectionEvents {
  isOpen = false;
  private reporting = true;

  constructor(
    private readonly events: Pick<SessionEvents, "qr" | "paired" | "connected" | "disconnected">,
    private readonly hooks: ConnectionHooks,
    /** True for a session started without a paired number: it reports `paired` when it first opens. */
    private pairing: boolean,
  ) {}

  /** From now on the socket's end is the gateway's own doing (close, logout): nothing more is reported. */
  stopReporting(): void {
    this.reporting = false;
    this.isOpen = false;
  }

  async update(update: Partial<ConnectionState>): Promise<void> {
    if (!this.reporting) return;
    if (update.qr) this.events.qr(update.qr);
    if (update.connection === "open") {
      this.isOpen = true;
      if (this.pairing) {
        this.pairing = false;
        // `paired` promises the auth state is saved already.
        await this.hooks.credsSaved();
        this.events.paired(jidToE164(this.hooks.meId() ?? ""));
      }
      this.events.connected();
    }
    if (update.connection === "close") await this.closed(update.lastDisconnect?.error);
  }

  private async closed(error: Error | undefined): Promise<void> {
    this.isOpen = false;
    const end = socketEnd(error);
    await this.hooks.credsSaved();
    if (end.action === "reconnect") {
      this.hooks.reconnect();
      return;
    }
    this.reporting = false;
    this.hooks.over();
    if (end.forgetAuth) await this.hooks.forgetAuth();
    this.events.disconnected(end.reason);
  }
}
