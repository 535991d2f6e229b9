// What the simulated network's tests share: a running network with its control client, the
// gateway's real store in a temp dir, and a recorder of a session's events that tests wait on.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DisconnectReason, InboundMessage, NetworkSession, Receipt, SessionEvents } from "../../../server/gateway/network/network.ts";
import { SimulatedNetwork, SimulatedNetworkControl, startSimulatedNetwork, type RunningSimulatedNetwork, type SimulatedNetworkOptions } from "../../../server/gateway/network/simulated/index.ts";
import { openGatewayDatabase, type GatewayDatabase } from "../../../server/gateway/store/database.ts";
import { SqlAuthStateStore } from "../../../server/gateway/store/auth-state.ts";

export type Recorded =
  | { kind: "qr"; code: string }
  | { kind: "paired"; phone: string }
  | { kind: "connected" }
  | { kind: "disconnected"; reason: DisconnectReason }
  | { kind: "message"; message: InboundMessage }
  | { kind: "receipt"; receipt: Receipt };

/** Records a session's events in order; `until` waits for a condition over them. */
export class EventLog implements SessionEvents {
  readonly entries: Recorded[] = [];
  /** What `message` and `receipt` answer (resolve: stored; reject: not stored). */
  onMessage: (message: InboundMessage) => Promise<void> = async () => {};
  onReceipt: (receipt: Receipt) => Promise<void> = async () => {};
  /** Called inside `paired`, to look at the store at that moment. */
  onPaired: (phone: string) => void = () => {};
  private waiters: { condition: () => boolean; resolve: () => void }[] = [];

  qr(code: string): void {
    this.record({ kind: "qr", code });
  }
  paired(phone: string): void {
    this.onPaired(phone);
    this.record({ kind: "paired", phone });
  }
  connected(): void {
    this.record({ kind: "connected" });
  }
  disconnected(reason: DisconnectReason): void {
    this.record({ kind: "disconnected", reason });
  }
  message(message: InboundMessage): Promise<void> {
    this.record({ kind: "message", message });
    return this.onMessage(message);
  }
  receipt(receipt: Receipt): Promise<void> {
    this.record({ kind: "receipt", receipt });
    return this.onReceipt(receipt);
  }

  of<K extends Recorded["kind"]>(kind: K): Extract<Recorded, { kind: K }>[] {
    return this.entries.filter((entry): entry is Extract<Recorded, { kind: K }> => entry.kind === kind);
  }

  /** Resolves once `condition` holds over the entries (at once if it already does). */
  until(condition: (log: EventLog) => boolean): Promise<void> {
    if (condition(this)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ condition: () => condition(this), resolve }));
  }

  /** Resolves once `count` entries of `kind` were recorded; answers them. */
  async count<K extends Recorded["kind"]>(kind: K, count: number): Promise<Extract<Recorded, { kind: K }>[]> {
    await this.until((log) => log.of(kind).length >= count);
    return this.of(kind);
  }

  private record(entry: Recorded): void {
    this.entries.push(entry);
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.condition()) return true;
      waiter.resolve();
      return false;
    });
  }
}

export interface Harness {
  network: RunningSimulatedNetwork;
  control: SimulatedNetworkControl;
  directory: string;
  database: GatewayDatabase;
  close(): Promise<void>;
}

export async function startHarness(options: SimulatedNetworkOptions = {}): Promise<Harness> {
  const network = await startSimulatedNetwork(options);
  const directory = mkdtempSync(join(tmpdir(), "simnet-"));
  const database = await openGatewayDatabase(join(directory, "g.sqlite"));
  return {
    network, control: new SimulatedNetworkControl(network.url), directory, database,
    async close() {
      await database.close();
      await network.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The credential entries an instance's auth state holds. */
export async function storedAuth(database: GatewayDatabase, instanceId: string): Promise<Record<string, string>> {
  return Object.fromEntries(await new SqlAuthStateStore(database.sql, instanceId).read(["sim.credential", "sim.phone"]));
}

/** Opens a session for `instanceId` with a new adapter object and a new store object, as a fresh process would. */
export async function openSession(harness: Harness, instanceId: string, log = new EventLog()): Promise<{ adapter: SimulatedNetwork; session: NetworkSession; log: EventLog }> {
  const adapter = new SimulatedNetwork(harness.network.url);
  const session = await adapter.open({ instanceId, auth: new SqlAuthStateStore(harness.database.sql, instanceId), events: log });
  return { adapter, session, log };
}

/** Opens a session and pairs it to `phone` by scanning its first code; resolves once connected. */
export async function pairedSession(harness: Harness, instanceId: string, phone: string, log = new EventLog()) {
  const opened = await openSession(harness, instanceId, log);
  const [shown] = await log.count("qr", 1);
  await harness.control.scan(phone, shown!.code);
  await log.count("connected", 1);
  return opened;
}

/**
 * Resolves once the network has handled every frame this session sent so far: the adapter's
 * pending acks go out first (they are sent from microtasks, all run before the next macrotask),
 * then a send it refuses without a change of state, whose answer follows them on the socket.
 */
export async function roundTrip(session: NetworkSession): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await session.send("round-trip", { type: "text", text: "" }, `round-trip-${crypto.randomUUID()}`);
}
