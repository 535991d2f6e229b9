// Sends queued messages through the numbers this replica holds open. A message is claimed in
// the store before its attempt (so no other replica sends it meanwhile), the attempt is
// recorded before the network is called, and the network is given the message's own id, so a
// send repeated after a crash or a failover reaches the recipient once.
import type { InboundEvents } from "./inbound-events.ts";
import { numberLimitStatus, SendWindow, dayMs, type NumberLimitSettings } from "./number-limits.ts";
import type { OutboundContent } from "./network/network.ts";
import type { HeldSession, SessionHost } from "./session-host.ts";
import type { GatewayMessage, MessageStore } from "./store/messages.ts";
import type { Metrics } from "./metrics.ts";
import { PassLoop } from "../pass-loop.ts";
import { Wake } from "./wake.ts";

/** Messages claimed per pass. */
export const dispatchBatchMax = 500;
/** Waits after transient refusals, attempt by attempt; past the last, the message fails. */
export const sendRetryDelaysMs: readonly number[] = [5_000, 15_000, 60_000, 300_000, 900_000];

export interface StoredContent {
  type: OutboundContent["type"];
  text?: string;
  mimeType?: string;
  dataBase64?: string;
  fileName?: string | null;
  caption?: string | null;
}

export function outboundContent(stored: StoredContent): OutboundContent {
  if (stored.type === "text") return { type: "text", text: stored.text! };
  return { type: stored.type, mimeType: stored.mimeType!, data: Buffer.from(stored.dataBase64!, "base64"), fileName: stored.fileName ?? null, caption: stored.caption ?? null };
}

export interface DispatcherDeps {
  replica: string;
  messages: MessageStore;
  sessions: SessionHost;
  events: InboundEvents;
  metrics: Metrics;
  limits: NumberLimitSettings;
  /**
   * How long a claim on a message lasts: a lease's life. Only the number's holder sends an
   * interrupted message again, so a claim matters only once the number has changed hands.
   */
  claimMs: number;
  now: () => number;
  /** Projects whose sends are stopped (suspended). */
  suspended(projectIds: readonly string[]): Promise<Set<string>>;
  log(line: string): void;
}

export class Dispatcher {
  private readonly windows = new Map<string, SendWindow>();
  private readonly loop: PassLoop;
  private readonly wake: Wake;

  constructor(private readonly deps: DispatcherDeps) {
    this.wake = new Wake(deps.now, () => this.kick());
    // A full batch may have left more behind it.
    this.loop = new PassLoop(
      async () => {
        const passed = await this.pass();
        return { done: passed, more: passed === dispatchBatchMax };
      },
      (error) => deps.log(`gateway: dispatch pass failed: ${error.message}`),
    );
  }

  /** Runs a pass soon (passes never overlap; a kick during one runs another after it). */
  kick(): void {
    this.loop.kick();
  }

  /** One or more passes until nothing more is due now; resolves with the messages attempted. */
  run(): Promise<number> {
    return this.loop.run();
  }

  /** Takes the window of a number this replica now holds, seeded from the store. */
  async seedWindow(instanceId: string): Promise<void> {
    const now = this.deps.now();
    this.windows.set(instanceId, new SendWindow(await this.deps.messages.sentThrough(instanceId, now - dayMs)));
  }

  forget(instanceId: string): void {
    this.windows.delete(instanceId);
  }

  private window(instanceId: string): SendWindow {
    let window = this.windows.get(instanceId);
    if (!window) this.windows.set(instanceId, (window = new SendWindow([])));
    return window;
  }

  private async pass(): Promise<number> {
    const { messages, sessions, now } = this.deps;
    const open = sessions.connected().filter((held) => held.instance.state === "paired");
    if (open.length === 0) return 0;
    const byProject = new Map<string, HeldSession[]>();
    for (const held of open) byProject.set(held.instance.projectId, [...(byProject.get(held.instance.projectId) ?? []), held]);
    const suspended = await this.deps.suspended([...byProject.keys()]);
    const projectIds = [...byProject.keys()].filter((id) => !suspended.has(id));
    const due = await messages.due(projectIds, now(), dispatchBatchMax);
    if (due.length === 0) return 0;
    // Each number sends its share one by one; numbers send in parallel.
    const perNumber = new Map<string, { held: HeldSession; queue: GatewayMessage[] }>();
    const sticky = new Map<string, string | null>();
    let earliestFree = Number.POSITIVE_INFINITY;
    for (const message of due) {
      const stickyKey = `${message.projectId}\u0000${message.recipient}`;
      if (!sticky.has(stickyKey)) sticky.set(stickyKey, await messages.lastInstanceFor(message.projectId, message.recipient));
      // An attempt cut short (its replica died mid-send) may have reached the network: it is sent
      // again only through the same number, whose network keeps one message per id.
      const interrupted = message.state === "sending" && message.instanceId !== null;
      const candidates = interrupted ? byProject.get(message.projectId)!.filter((held) => held.instance.id === message.instanceId) : byProject.get(message.projectId)!;
      if (candidates.length === 0) continue;
      const choice = this.choose(candidates, interrupted ? message.instanceId : sticky.get(stickyKey)!, now());
      if ("wait" in choice) {
        earliestFree = Math.min(earliestFree, choice.wait);
        continue;
      }
      sticky.set(stickyKey, choice.held.instance.id);
      // Counted now, so the next message of this pass sees the number's budget spent.
      this.window(choice.held.instance.id).record(now());
      const entry = perNumber.get(choice.held.instance.id) ?? { held: choice.held, queue: [] };
      entry.queue.push(message);
      perNumber.set(choice.held.instance.id, entry);
    }
    await Promise.all([...perNumber.values()].map(({ held, queue }) => this.sendAll(held, queue)));
    if (Number.isFinite(earliestFree)) this.wake.request(earliestFree);
    return [...perNumber.values()].reduce((sum, { queue }) => sum + queue.length, 0);
  }

  /** The sticky number when it can send now, else the ready number with the fewest recent sends. */
  private choose(numbers: HeldSession[], stickyId: string | null, now: number): { held: HeldSession } | { wait: number } {
    let best: { held: HeldSession; recent: number } | null = null;
    let wait = Number.POSITIVE_INFINITY;
    for (const held of numbers) {
      const recent = this.window(held.instance.id).recent(now);
      const status = numberLimitStatus(recent, held.instance.pairedAt ?? held.instance.createdAt, now, this.deps.limits);
      if (status.kind !== "ready") {
        wait = Math.min(wait, status.until);
        continue;
      }
      if (held.instance.id === stickyId) return { held };
      if (!best || recent.length < best.recent) best = { held, recent: recent.length };
    }
    return best ? { held: best.held } : { wait };
  }


  /**
   * Sends one number's share of a pass. The claims and the attempts' start are written for the
   * whole share at once before the first send, and the sent ones settled at once after the
   * last: on SQLite each statement is a commit waiting for its fsync, so writing per message
   * made the disk, not the network, the limit. A crash in between leaves them `sending` through
   * this number, which sends them again under the same ids (the network keeps one of each).
   */
  private async sendAll(held: HeldSession, queue: GatewayMessage[]): Promise<void> {
    const { messages, replica, now, metrics } = this.deps;
    const claimed = await messages.claimMany(queue.map((message) => message.id), replica, held.instance.id, now(), this.deps.claimMs);
    if (claimed.length === 0) return;
    const startedAt = now();
    const attempts = claimed.map((message) => ({ id: Bun.randomUUIDv7(), projectId: message.projectId, messageId: message.id, instanceId: held.instance.id, replica, now: startedAt }));
    await messages.recordSendStarts(attempts);
    const accepted: string[] = [];
    const duplicates: string[] = [];
    const sentIds: string[] = [];
    for (const [index, message] of claimed.entries()) {
      const attemptId = attempts[index]!.id;
      if (!held.connected || !held.session) {
        await messages.recordSendEnd(attemptId, "error", "the session closed before this attempt", now());
        await messages.settle(message.id, replica, { state: "queued", failure: null, nextAttemptAt: now(), sentAt: null }, now());
        continue;
      }
      const result = await held.session.send(message.recipient, outboundContent(JSON.parse(message.content) as StoredContent), message.id).catch((error: Error) => ({
        ok: false as const,
        transient: true,
        reason: `network error: ${error.message}`,
      }));
      if (result.ok) {
        (result.duplicate ? duplicates : accepted).push(attemptId);
        sentIds.push(message.id);
        metrics.sent(message.projectId);
      } else await this.refused(held, message, attemptId, result);
    }
    await messages.recordSendEnds(accepted, "accepted", now());
    await messages.recordSendEnds(duplicates, "duplicate", now());
    await messages.settleSent(sentIds, replica, startedAt, now());
  }

  private async refused(held: HeldSession, message: GatewayMessage, attemptId: string, result: { transient: boolean; reason: string }): Promise<void> {
    const { messages, replica, now, metrics } = this.deps;
    await messages.recordSendEnd(attemptId, "refused", result.reason, now());
    const delay = sendRetryDelaysMs[message.attempts - 1];
    if (result.transient && delay !== undefined) {
      await messages.settle(message.id, replica, { state: "queued", failure: result.reason, nextAttemptAt: now() + delay, sentAt: null }, now());
      this.wake.request(now() + delay);
      return;
    }
    const failure = result.transient ? `${result.reason} (gave up after ${message.attempts} attempts)` : result.reason;
    const failed = await messages.settle(message.id, replica, { state: "failed", failure, nextAttemptAt: now(), sentAt: null }, now());
    metrics.failed(message.projectId);
    if (failed) await this.deps.events.failed(message.projectId, held.instance.id, failed, failure);
  }

  stop(): void {
    this.wake.stop();
  }
}
