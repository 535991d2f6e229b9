// The network sessions this replica holds: one per number it owns (by lease), opened with the
// number's stored auth state. Turns what a session reports into store changes and deliveries:
// pairing (refused when another phone scans), connection changes, inbound messages (stored
// before the network is acknowledged) and receipts of sent messages.
import type { InboundEvents } from "./inbound-events.ts";
import type { DisconnectReason, MessagingNetwork, NetworkSession } from "./network/network.ts";
import { SqlAuthStateStore } from "./store/auth-state.ts";
import type { GatewayInstance, InstanceStore } from "./store/instances.ts";
import type { MessageStore } from "./store/messages.ts";
import type { SQL } from "bun";

/** After the network closed a session because another connection took the number, wait this long before taking it back. */
export const replacedBackoffMs = 60_000;
/** How long connect waits for the session's first word (a pairing code or "connected") before answering. */
export const firstEventWaitMs = 5_000;

export interface HeldSession {
  instance: GatewayInstance;
  session: NetworkSession | null;
  connected: boolean;
  /** Set when this replica closes the session itself: what the session says after that is not news. */
  closing: boolean;
  /** Resolves on the session's first qr or connected event (or its end). */
  firstEvent: Promise<void>;
}

export interface SessionHostDeps {
  sql: SQL;
  network: MessagingNetwork;
  instances: InstanceStore;
  messages: MessageStore;
  events: InboundEvents;
  now: () => number;
  /** A session opened: queued messages may now go out through it. */
  onConnected(instanceId: string): void;
  log(line: string): void;
}

export class SessionHost {
  private readonly held = new Map<string, HeldSession>();
  private readonly replacedAt = new Map<string, number>();

  constructor(private readonly deps: SessionHostDeps) {}

  get(instanceId: string): HeldSession | undefined {
    return this.held.get(instanceId);
  }

  heldIds(): string[] {
    return [...this.held.keys()];
  }

  connected(): HeldSession[] {
    return [...this.held.values()].filter((held) => held.connected && held.session !== null);
  }

  /** False while the network recently gave the number to another connection. */
  mayOpen(instanceId: string): boolean {
    const at = this.replacedAt.get(instanceId);
    return at === undefined || this.deps.now() - at >= replacedBackoffMs;
  }

  /** Opens the number's session unless this replica holds one already. */
  async open(instance: GatewayInstance): Promise<HeldSession> {
    const existing = this.held.get(instance.id);
    if (existing) return existing;
    let settleFirst = () => {};
    const held: HeldSession = { instance, session: null, connected: false, closing: false, firstEvent: new Promise((resolve) => (settleFirst = resolve)) };
    this.held.set(instance.id, held);
    this.replacedAt.delete(instance.id);
    const { instances, now } = this.deps;
    await instances.update(instance.id, { connection: "connecting" }, now());
    try {
      held.session = await this.deps.network.open({
        instanceId: instance.id,
        auth: new SqlAuthStateStore(this.deps.sql, instance.id),
        events: {
          qr: (code) => {
            void instances.update(instance.id, { qrCode: code, qrAt: now() }, now()).then(settleFirst, settleFirst);
          },
          paired: (phone) => {
            if (!held.closing) this.paired(held, phone).catch((error: Error) => this.deps.log(`gateway: recording ${instance.id} paired: ${error.message}`));
          },
          connected: () => {
            held.connected = true;
            void instances
              .update(instance.id, { connection: "open", connectedAt: now(), disconnectedAt: null, qrCode: null, qrAt: null, lastError: null }, now())
              .then(() => {
                settleFirst();
                this.deps.onConnected(instance.id);
              }, settleFirst);
          },
          disconnected: (reason) => {
            settleFirst();
            this.disconnected(held, reason).catch((error: Error) => this.deps.log(`gateway: recording ${instance.id} disconnected: ${error.message}`));
          },
          message: (message) => this.deps.events.message(held.instance, message),
          receipt: async (receipt) => {
            const sent = await this.deps.messages.receipt(receipt.networkId, receipt.status, receipt.at, now());
            if (sent) await this.deps.events.receipt(held.instance, sent, receipt.status, receipt.at);
          },
        },
      });
    } catch (error) {
      this.held.delete(instance.id);
      settleFirst();
      await instances.update(instance.id, { connection: "closed", disconnectedAt: now(), lastError: `could not reach the network: ${(error as Error).message}` }, now());
      throw error;
    }
    return held;
  }

  private async paired(held: HeldSession, phone: string): Promise<void> {
    const { instances, now } = this.deps;
    const instance = held.instance;
    if (phone !== instance.phone) {
      // The number belongs to the registration: a different phone is unlinked at once.
      this.deps.log(`gateway: instance ${instance.id} was scanned by another phone than ${instance.phone}; unlinked`);
      await held.session?.logout().catch(() => {});
      this.held.delete(instance.id);
      await instances.update(instance.id, { state: "pending", wantsSession: false, connection: "closed", qrCode: null, qrAt: null, lastError: `scanned by ${phone}, but this instance is ${instance.phone}: scan with that phone` }, now());
      return;
    }
    held.instance = (await instances.update(instance.id, { state: "paired", pairedAt: now(), wantsSession: true, qrCode: null, qrAt: null, lastError: null }, now())) ?? instance;
    await this.deps.events.instance(held.instance, "instance.paired", Bun.randomUUIDv7(), {});
  }

  private async disconnected(held: HeldSession, reason: DisconnectReason): Promise<void> {
    const { instances, now } = this.deps;
    if (held.closing) return;
    if (this.held.get(held.instance.id) === held) this.held.delete(held.instance.id);
    held.connected = false;
    const id = held.instance.id;
    if (reason.kind === "replaced") this.replacedAt.set(id, now());
    const change =
      reason.kind === "logged_out"
        ? { state: "pending" as const, wantsSession: false, connection: "closed" as const, disconnectedAt: now(), lastError: reason.message, qrCode: null, qrAt: null }
        : { connection: "closed" as const, disconnectedAt: now(), lastError: reason.message };
    if (reason.kind === "logged_out") await new SqlAuthStateStore(this.deps.sql, id).clear();
    const updated = await instances.update(id, change, now());
    if (updated && updated.state !== "retired") {
      await this.deps.events.instance(updated, reason.kind === "logged_out" ? "instance.logged_out" : "instance.disconnected", Bun.randomUUIDv7(), { reason: reason.kind, message: reason.message });
    }
  }

  /** Closes the session, keeping its auth state (the lease went elsewhere, or the process stops). */
  async close(instanceId: string): Promise<void> {
    const held = this.held.get(instanceId);
    if (!held) return;
    this.held.delete(instanceId);
    held.connected = false;
    held.closing = true;
    await held.session?.close().catch((error: Error) => this.deps.log(`gateway: closing ${instanceId}: ${error.message}`));
  }

  /** Unlinks the device from the phone (a new scan is needed) and forgets the auth state. */
  async logout(instanceId: string): Promise<void> {
    const held = this.held.get(instanceId);
    this.held.delete(instanceId);
    if (held) {
      held.connected = false;
      held.closing = true;
      await held.session?.logout().catch((error: Error) => this.deps.log(`gateway: logging ${instanceId} out: ${error.message}`));
    }
    await new SqlAuthStateStore(this.deps.sql, instanceId).clear();
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.heldIds().map((id) => this.close(id)));
  }
}
