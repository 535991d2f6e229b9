// Which numbers this replica holds. With sharding, replicas split the numbers that want a
// session by lease (each takes up to its fair share, so a new replica gets some and a dead one's
// are taken over once its leases lapse); without sharding, one replica takes every number and a
// second finds them held (and the replica-conflict alert fires) instead of evicting sessions.
import type { Dispatcher } from "./dispatcher.ts";
import type { SessionHost } from "./session-host.ts";
import type { GatewayInstance, InstanceStore } from "./store/instances.ts";
import type { GatewayReplica, ReplicaStore } from "./store/replicas.ts";

export interface LeaseDeps {
  replica: string;
  replicaUrl: string | null;
  sharding: boolean;
  leaseTtlMs: number;
  startedAt: number;
  instances: InstanceStore;
  replicas: ReplicaStore;
  sessions: SessionHost;
  dispatcher: Dispatcher;
  now: () => number;
  log(line: string): void;
}

export interface LeasePass {
  held: number;
  opened: number;
  released: number;
  liveReplicas: number;
}

export class Leases {
  private readonly owned = new Set<string>();

  constructor(private readonly deps: LeaseDeps) {}

  heldCount(): number {
    return this.owned.size;
  }

  holds(instanceId: string): boolean {
    return this.owned.has(instanceId);
  }

  async liveReplicas(): Promise<GatewayReplica[]> {
    return this.deps.replicas.live(this.deps.now() - this.deps.leaseTtlMs);
  }

  /** Takes the number's lease now if it is free (a request for it landed here); false when another replica holds it. */
  async take(instance: GatewayInstance): Promise<boolean> {
    const { instances, replica, now, leaseTtlMs } = this.deps;
    const claimed = await instances.claim(instance.id, replica, now(), leaseTtlMs);
    if (!claimed) return false;
    if (!this.owned.has(instance.id)) {
      this.owned.add(instance.id);
      await this.deps.dispatcher.seedWindow(instance.id);
    }
    return true;
  }

  /** One pass: announce this replica, renew and take leases up to its share, open and close sessions to match. */
  async pass(): Promise<LeasePass> {
    const { instances, replicas, sessions, replica, now, sharding } = this.deps;
    await replicas.heartbeat({ id: replica, url: this.deps.replicaUrl, sharding, startedAt: this.deps.startedAt, now: now() });
    const live = await this.liveReplicas();
    const peers = sharding ? live.filter((other) => other.sharding) : live;
    const wanting = await instances.wantingSession();
    const share = sharding ? Math.ceil(wanting.length / Math.max(1, peers.length)) : Number.POSITIVE_INFINITY;
    let released = 0;
    const keep: GatewayInstance[] = [];
    const wantingIds = new Set(wanting.map((instance) => instance.id));
    // Renew what is ours first; above the share, give back paired numbers (oldest kept, so a new
    // replica gets the newest). A number being paired here is never given back: its phone is
    // scanning this session's code, and another replica's session would show a new one.
    const mine = wanting.filter((instance) => this.owned.has(instance.id));
    const pairingHere = mine.filter((instance) => this.isPairingHere(instance));
    for (const instance of [...pairingHere, ...mine.filter((instance) => !pairingHere.includes(instance))]) {
      if (keep.length >= share && !pairingHere.includes(instance)) {
        await this.letGo(instance.id);
        released += 1;
        continue;
      }
      if (await this.take(instance)) keep.push(instance);
      else await this.letGo(instance.id);
    }
    for (const id of [...this.owned].filter((id) => !wantingIds.has(id))) await this.letGo(id);
    for (const instance of wanting) {
      if (keep.length >= share) break;
      if (this.owned.has(instance.id)) continue;
      if (await this.take(instance)) keep.push(instance);
    }
    let opened = 0;
    for (const instance of keep) {
      if (sessions.get(instance.id) || !sessions.mayOpen(instance.id)) continue;
      const fresh = (await instances.get(instance.id)) ?? instance;
      try {
        await sessions.open(fresh);
        opened += 1;
      } catch (error) {
        this.deps.log(`gateway: opening ${instance.id}: ${(error as Error).message}`);
      }
    }
    return { held: this.owned.size, opened, released, liveReplicas: live.length };
  }

  /** The number waits for its first scan, through a session this replica holds. */
  private isPairingHere(instance: GatewayInstance): boolean {
    return instance.state !== "paired" && this.deps.sessions.get(instance.id) !== undefined;
  }

  /** Closes the number's session here and gives its lease back. */
  async letGo(instanceId: string): Promise<void> {
    this.owned.delete(instanceId);
    this.deps.dispatcher.forget(instanceId);
    await this.deps.sessions.close(instanceId);
    await this.deps.instances.release(instanceId, this.deps.replica);
  }

  /** This replica stops: every session closes (auth kept) and every lease is given back. */
  async releaseAll(): Promise<void> {
    for (const id of [...this.owned]) await this.letGo(id);
    await this.deps.replicas.remove(this.deps.replica).catch(() => {});
  }
}
