// Ingestion warnings as ingest meets them: every rejected event, every drop-in event accepted
// with a change its sender should know about (an email address as its distinct id), and every
// accepted event that breaks its project's tracking plan when the project asks for it.
// Counted in memory by project, environment, UTC day, reason and message, with the first
// event's example, and written to the region's SQLite file every warningsFlushIntervalMs (and
// at a clean shutdown), so recording one costs the request a map lookup, not a write. Served by
// GET /ingestion/warnings (server/region/ingestion-warnings-routes.ts). Each minute that had
// warnings, one log line per project environment gives its counts by reason, with no payload:
//   ingestion warnings: region=eu project=<uuid> environment=production clock_skew=1 invalid=12
import type { RegistryKey } from "../../storage/region-store.ts";
import {
  dayMs, utcDay, warningDaysKept, warningSlot, warningSlotDaysKept, type IngestionWarningStore, type WarningCount, type WarningFilter, type WarningSlotCount,
} from "../../storage/ingestion-warning-store.ts";
import type { RejectReason } from "./rejections.ts";
import { exampleIds, warningExample } from "./warning-example.ts";
import { contactKind, pseudonym } from "./pseudonyms.ts";

/**
 * A rejection's reason; `pseudonymised_id`: a drop-in id that was an email address or phone
 * number, stored as a pseudonym; `plan_violation`: an accepted event that breaks its project's
 * tracking plan (plan-violations.ts); `webhook_unauthenticated`: a request to a revenue webhook
 * URL whose signature or authorization did not verify (server/ingest/revenue/webhook-route.ts).
 */
export type WarningReason = RejectReason | "pseudonymised_id" | "plan_violation" | "webhook_unauthenticated";
export const warningReasons: readonly WarningReason[] = ["invalid", "too_large", "reserved_name", "clock_skew", "duplicate", "pseudonymised_id", "plan_violation", "webhook_unauthenticated"];

export const warningsFlushIntervalMs = 5_000;
export const warningsLogIntervalMs = 60_000;
/** Kinds of warning (project, environment, day, reason, message) held between flushes; reaching it flushes at once. */
export const pendingWarningsMax = 10_000;

export interface Warning {
  reason: WarningReason;
  message: string;
}

export interface WarningsOptions {
  /** The region's code, for the log lines. */
  region: string;
  /** The names a project's catalog marks as personal data (masked in examples). */
  catalogPii: (projectId: string) => ReadonlySet<string>;
  /** The project's pseudonym key: an example's id that is an email address or phone number is kept as its pseudonym, never as sent. */
  pseudonymKey: (projectId: string) => Uint8Array;
  log?: (line: string) => void;
  flushIntervalMs?: number;
  logIntervalMs?: number;
}

export class IngestionWarnings {
  /** Counts since the last flush, by project, environment, day, reason and message. */
  private readonly pending = new Map<string, WarningCount>();
  /** Counts since the last flush per quarter of an hour, by project, environment, slot and reason (findings rules read them). */
  private readonly pendingSlots = new Map<string, WarningSlotCount>();
  /** Counts since the last log line, by project and environment, then by reason. */
  private readonly unlogged = new Map<string, Map<WarningReason, number>>();
  private readonly timers: ReturnType<typeof setInterval>[];
  /** The oldest day kept when rows were last pruned. */
  private prunedBefore = "";

  constructor(private readonly store: IngestionWarningStore, private readonly options: WarningsOptions) {
    this.timers = [
      setInterval(() => this.flush(), options.flushIntervalMs ?? warningsFlushIntervalMs),
      setInterval(() => this.logCounts(), options.logIntervalMs ?? warningsLogIntervalMs),
    ];
    // Neither keeps the process alive: close() writes what is left.
    for (const timer of this.timers) timer.unref();
  }

  /** Counts one warning about `source` (the event as its sender sent it) at `at` (epoch ms). */
  record(key: RegistryKey, warning: Warning, source: unknown, at: number): void {
    const day = utcDay(at);
    const id = `${key.projectId}\u0000${key.environment}\u0000${day}\u0000${warning.reason}\u0000${warning.message}`;
    const counted = this.pending.get(id);
    if (counted) {
      counted.count++;
      counted.lastSeen = Math.max(counted.lastSeen, at);
    } else {
      const example = warningExample(source, this.options.catalogPii(key.projectId));
      const { reason, message } = warning;
      this.pending.set(id, {
        projectId: key.projectId, environment: key.environment, day, reason, message, count: 1, firstSeen: at, lastSeen: at, example, exampleIds: this.storedIds(key.projectId, source),
      });
    }
    const slot = warningSlot(at);
    const slotId = `${key.projectId}\u0000${key.environment}\u0000${slot}\u0000${warning.reason}`;
    const slotCount = this.pendingSlots.get(slotId);
    if (slotCount) slotCount.count++;
    else this.pendingSlots.set(slotId, { projectId: key.projectId, environment: key.environment, slot, reason: warning.reason, count: 1 });
    const scope = `${key.projectId}\u0000${key.environment}`;
    let reasons = this.unlogged.get(scope);
    if (!reasons) this.unlogged.set(scope, (reasons = new Map()));
    reasons.set(warning.reason, (reasons.get(warning.reason) ?? 0) + 1);
    if (this.pending.size >= pendingWarningsMax || this.pendingSlots.size >= pendingWarningsMax) this.flush();
  }

  /** The ids an example's event names, as ingest stores them: a contact as its pseudonym (the example masks the contact itself). */
  private storedIds(projectId: string, source: unknown): string[] {
    return exampleIds(source).map((id) => {
      const kind = contactKind(id);
      return kind === null ? id : pseudonym(this.options.pseudonymKey(projectId), kind, id);
    });
  }

  /** Writes the pending counts, and deletes the days past warningDaysKept once a day. */
  flush(now = Date.now()): void {
    try {
      if (this.pending.size > 0 || this.pendingSlots.size > 0) this.store.add(this.pending.values(), this.pendingSlots.values());
      const oldestKept = utcDay(now - (warningDaysKept - 1) * dayMs);
      if (oldestKept !== this.prunedBefore) {
        this.store.prune(oldestKept, warningSlot(now - warningSlotDaysKept * dayMs));
        this.prunedBefore = oldestKept;
      }
    } catch (error) {
      // The log lines still count them; holding them for a store that fails would grow without bound.
      console.error(`region ${this.options.region}: ingestion warnings could not be written, ${this.pending.size} kinds lost:`, error);
    }
    this.pending.clear();
    this.pendingSlots.clear();
  }

  /** One log line per project environment with warnings since the last one: counts by reason, no payload. */
  logCounts(): void {
    const log = this.options.log ?? console.log;
    for (const [scope, reasons] of this.unlogged) {
      const [projectId, environment] = scope.split("\u0000");
      const counts = warningReasons.filter((reason) => reasons.has(reason)).map((reason) => `${reason}=${reasons.get(reason)}`);
      log(`ingestion warnings: region=${this.options.region} project=${projectId} environment=${environment} ${counts.join(" ")}`);
    }
    this.unlogged.clear();
  }

  /** A project environment's warnings in `filter`, the pending ones included. */
  list(projectId: string, environment: string, filter: WarningFilter): WarningCount[] {
    this.flush();
    return this.store.list(projectId, environment, filter);
  }

  /** Warnings of a project environment in [from, to) (epoch ms), of one reason or of all (null), the pending ones included. */
  countBetween(projectId: string, environment: string, reason: string | null, fromMs: number, toMs: number): number {
    this.flush();
    return this.store.countBetween(projectId, environment, reason, fromMs, toMs);
  }

  /** Stops the timers and writes and logs what is left. */
  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.flush();
    this.logCounts();
  }
}
