// One region's data side: its directory under DATA_DIR, region.sqlite (key registry, ingest
// policies), the write-ahead log of accepted events, the storage worker that turns them into
// segments and Parquet, and the ingest-time state derived from them (recent uuids for
// duplicate detection, per-project rate buckets, the recent events live streams show).
import { makeDirectories } from "../../storage/atomic-file.ts";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { RegionCode } from "../config.ts";
import { RegionStore } from "../../storage/region-store.ts";
import { WriteAheadLog } from "../../storage/wal.ts";
import { RecentUuidIndex, uuidIndexCapacity } from "../../storage/uuid-index.ts";
import { quarantineDir, quarantineSuffix, type StorageTuning } from "../../storage/event-store.ts";
import { recentPartsMax, recentUuidsOnDisk } from "../../storage/recent-uuids.ts";
import { StorageClient } from "../../storage/storage-client.ts";
import { ProjectRateLimiter } from "../ingest/project-rate.ts";
import type { DatacenterRanges } from "../ingest/datacenter-ip.ts";
import { IngestionWarnings } from "../ingest/ingestion-warnings.ts";
import { LiveHub } from "./live/live-hub.ts";
import { PlanViolations } from "../ingest/plan-violations.ts";
import type { CatalogPlan } from "../../storage/catalog-plan-store.ts";
import { ReplayStore } from "../../storage/replay/replay-store.ts";
import { sweepReplays } from "../../storage/replay/replay-sweep.ts";
import type { FindingsDispatcher } from "../findings/findings-types.ts";

export class RegionNode {
  readonly rates = new ProjectRateLimiter();
  private readonly keepRatios = new Map<string, number>();
  /** Rejected events and drop-in ids turned into pseudonyms, counted per project (GET /ingestion/warnings). */
  readonly warnings: IngestionWarnings;
  /** Events as they are accepted, and the last ones of each project environment (GET /events/live). */
  readonly live: LiveHub;
  /** Tracking-plan checks of the projects that turned them on (warnings, never rejections). */
  readonly planViolations: PlanViolations;
  /** Delivers raised findings and test messages (wired at start-up; null: findings delivery is not running here). */
  findings: FindingsDispatcher | null = null;
  private replayTimer: ReturnType<typeof setInterval> | null = null;

  private constructor(
    readonly code: RegionCode,
    readonly dataDir: string,
    readonly store: RegionStore,
    readonly wal: WriteAheadLog,
    readonly events: StorageClient,
    /** Recently accepted uuids, for `duplicate` rejections. */
    readonly uuids: RecentUuidIndex,
    /** Events sent from these addresses are marked suspect. */
    readonly datacenterRanges: DatacenterRanges,
    /** Session recordings: their log, blocks and index. */
    readonly replays: ReplayStore,
    replayFlushIntervalMs: number,
  ) {
    for (const policy of store.ingestPolicies()) this.keepRatios.set(policy.projectId, policy.keepRatio);
    this.warnings = new IngestionWarnings(store.ingestionWarnings, {
      region: code,
      catalogPii: (projectId) => new Set(store.directory.piiProperties(projectId)),
      pseudonymKey: (projectId) => store.projectSecrets.pseudonymKey(projectId),
    });
    this.live = new LiveHub(store.directory);
    this.planViolations = new PlanViolations(this.warnings);
    for (const plan of store.catalogPlans.all()) this.planViolations.load(plan);
    if (replayFlushIntervalMs > 0) {
      this.replayTimer = setInterval(() => void this.maintainReplays(), replayFlushIntervalMs);
      this.replayTimer.unref();
    }
  }

  /** Compacts the replay log into blocks, then deletes recordings past retention or too short. */
  async maintainReplays(): Promise<void> {
    try {
      await this.replays.flush();
      await sweepReplays(this.replays, (projectId) => this.store.projectRetentionDays(projectId), Date.now());
    } catch (error) {
      console.error(`region ${this.code}: replay compaction failed (the replay log keeps the chunks; retried at the next pass):`, error);
    }
  }

  /** `replayFlushIntervalMs` 0: no timer (tests flush with maintainReplays). */
  static async open(code: RegionCode, dataDir: string, tuning: StorageTuning, datacenterRanges: DatacenterRanges, replayFlushIntervalMs: number): Promise<RegionNode> {
    makeDirectories(dataDir);
    const store = new RegionStore(join(dataDir, "region.sqlite"));
    const walDir = join(dataDir, "wal");
    // Events carry person indexes, so the person store's journal is synced with each record.
    const wal = await WriteAheadLog.open(walDir, [{ path: store.journalPath, changes: () => store.changes() }]);
    const uuids = new RecentUuidIndex();
    for await (const { projectId, uuid } of recentUuidsOnDisk(dataDir, walDir, { rowsMax: uuidIndexCapacity, partsMax: recentPartsMax })) uuids.add(projectId, uuid);
    const events = await StorageClient.start({
      dataDir,
      walDir,
      tuning,
      onSealed: (position) => {
        wal.truncateUpTo(position).catch((error) => console.error(`region ${code}: WAL truncation failed (harmless, retried at the next seal):`, error));
      },
      durableHead: () => wal.head(),
      threadLabel: code,
    });
    const replays = await ReplayStore.open(dataDir, store.replays, store.journalPath);
    return new RegionNode(code, dataDir, store, wal, events, uuids, datacenterRanges, replays, replayFlushIntervalMs);
  }

  keepRatio(projectId: string): number {
    return this.keepRatios.get(projectId) ?? 1;
  }

  setKeepRatio(projectId: string, keepRatio: number) {
    const policy = this.store.setIngestPolicy(projectId, keepRatio);
    this.keepRatios.set(projectId, keepRatio);
    return policy;
  }

  /** Takes a project's tracking plan (ignored when an older version than the one held): its checks and its personal-data property names. */
  publishCatalog(plan: CatalogPlan): void {
    if (!this.store.catalogPlans.put(plan)) return;
    this.store.directory.setPiiProperties(plan.projectId, plan.piiProperties);
    this.planViolations.load(plan);
  }

  health(): string {
    try {
      this.store.ping();
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
    const walProblem = this.wal.unavailableReason();
    if (walProblem) return `error: write-ahead log ${walProblem}`;
    const replayProblem = this.replays.unavailableReason();
    if (replayProblem) return `error: replay log ${replayProblem}`;
    const storageProblem = this.events.problem();
    if (storageProblem) return `error: storage ${storageProblem}`;
    const quarantined = this.quarantinedRecords();
    if (quarantined > 0) return `error: storage could not store ${quarantined} WAL record(s); they are kept in ${join(this.dataDir, quarantineDir)} (see the log)`;
    return "ok";
  }

  /** Records the storage worker set aside (EventStore.addWalRecord): until an operator moves them away, the region is degraded. */
  private quarantinedRecords(): number {
    const dir = join(this.dataDir, quarantineDir);
    return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(quarantineSuffix)).length : 0;
  }

  /** HealthResponse of this region alone, with its HTTP status. */
  healthReply(): { status: number; body: { status: string; checks: Record<string, string> } } {
    const check = this.health();
    const healthy = check === "ok";
    return { status: healthy ? 200 : 503, body: { status: healthy ? "ok" : "degraded", checks: { [`region:${this.code}`]: check } } };
  }

  /** Stops background work and seals what is buffered, so the next start replays little. */
  async close(): Promise<void> {
    if (this.replayTimer) clearInterval(this.replayTimer);
    await this.replays.close();
    await this.events.stop().catch((error) => console.error(`region ${this.code}: seal at shutdown failed (the WAL keeps the events):`, error));
    await this.wal.close();
    this.warnings.close();
    this.store.close();
  }
}
