// One region's data side: its directory under DATA_DIR, region.sqlite (key registry, ingest
// policies), the write-ahead log of accepted events, and the ingest-time state derived from
// them (recent uuids for duplicate detection, per-project rate buckets).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { RegionCode } from "../config.ts";
import { RegionStore } from "../../storage/region-store.ts";
import { WriteAheadLog } from "../../storage/wal.ts";
import { RecentUuidIndex } from "../../storage/uuid-index.ts";
import { decodeBatchRecord } from "../../storage/event-record.ts";
import { ProjectRateLimiter } from "../ingest/project-rate.ts";

export class RegionNode {
  readonly uuids = new RecentUuidIndex();
  readonly rates = new ProjectRateLimiter();
  private readonly keepRatios = new Map<string, number>();

  private constructor(
    readonly code: RegionCode,
    readonly dataDir: string,
    readonly store: RegionStore,
    readonly wal: WriteAheadLog,
  ) {
    for (const policy of store.ingestPolicies()) this.keepRatios.set(policy.projectId, policy.keepRatio);
    for (const { payload } of wal.records()) {
      const record = decodeBatchRecord(payload);
      for (const event of record.events) this.uuids.add(record.project_id, event.uuid);
    }
  }

  static async open(code: RegionCode, dataDir: string): Promise<RegionNode> {
    mkdirSync(dataDir, { recursive: true });
    const store = new RegionStore(join(dataDir, "region.sqlite"));
    const wal = await WriteAheadLog.open(join(dataDir, "wal"));
    return new RegionNode(code, dataDir, store, wal);
  }

  keepRatio(projectId: string): number {
    return this.keepRatios.get(projectId) ?? 1;
  }

  setKeepRatio(projectId: string, keepRatio: number) {
    const policy = this.store.setIngestPolicy(projectId, keepRatio);
    this.keepRatios.set(projectId, keepRatio);
    return policy;
  }

  health(): string {
    try {
      this.store.ping();
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
    const walProblem = this.wal.unavailableReason();
    return walProblem ? `error: write-ahead log ${walProblem}` : "ok";
  }

  /** HealthResponse of this region alone, with its HTTP status. */
  healthReply(): { status: number; body: { status: string; checks: Record<string, string> } } {
    const check = this.health();
    const healthy = check === "ok";
    return { status: healthy ? 200 : 503, body: { status: healthy ? "ok" : "degraded", checks: { [`region:${this.code}`]: check } } };
  }

  async close(): Promise<void> {
    await this.wal.close();
    this.store.close();
  }
}
