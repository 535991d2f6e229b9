// One region's data side: its directory under DATA_DIR and its region.sqlite.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { RegionCode } from "../config.ts";
import { RegionStore } from "../../storage/region-store.ts";

export class RegionNode {
  readonly store: RegionStore;

  constructor(
    readonly code: RegionCode,
    readonly dataDir: string,
  ) {
    mkdirSync(dataDir, { recursive: true });
    this.store = new RegionStore(join(dataDir, "region.sqlite"));
  }

  health(): string {
    try {
      this.store.ping();
      return "ok";
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
  }

  /** HealthResponse of this region alone, with its HTTP status. */
  healthReply(): { status: number; body: { status: string; checks: Record<string, string> } } {
    const check = this.health();
    const healthy = check === "ok";
    return { status: healthy ? 200 : 503, body: { status: healthy ? "ok" : "degraded", checks: { [`region:${this.code}`]: check } } };
  }

  close(): void {
    this.store.close();
  }
}
