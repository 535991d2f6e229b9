// Drives erasure requests to their end, one at a time, oldest first: pending → running →
// completed (report kept, certificate signed) or failed (the region refused the request).
// A region that cannot be reached leaves the request running with the error shown, and it is
// tried again every erasureRetryIntervalMs; at start-up every unfinished request is driven
// again (the region's erasure is idempotent and resumable by request id). Once a request
// ends, its identifiers are deleted and the control store is scrubbed (store-scrub.ts).
import { asc, eq, inArray } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import type { RegionCode } from "../../config.ts";
import { RegionRefusal, type RegionErasureReport } from "../../region/region-link.ts";
import type { ControlContext } from "../context.ts";
import { erasureRequests, erasureSubjects, projects } from "../db/schema.ts";
import { certificatePayload, signCertificate } from "./erasure-certificate.ts";
import { insertionOrder, type ErasureRow, type ErasureSubjects } from "./erasure-requests.ts";
import { scrubControlStore } from "./store-scrub.ts";

/** How often unfinished requests are driven again (a region that was down, a scrub that was busy). */
export const erasureRetryIntervalMs = 30_000;
/** Progress is written at most this often within a stage (every new stage is written at once). */
export const progressWriteIntervalMs = 250;

/** The region refused the request itself (not a passing failure): trying again would not help. */
const isRefusal = (error: unknown) => error instanceof RegionRefusal && error.status < 500;

function recordProgress(ctx: ControlContext, id: string) {
  let lastStage: string | null = null;
  let lastWrite = 0;
  return (stage: string, done: number, total: number) => {
    const now = Date.now();
    if (stage === lastStage && now - lastWrite < progressWriteIntervalMs && done < total) return;
    lastStage = stage;
    lastWrite = now;
    ctx.db.update(erasureRequests).set({ progressStage: stage, progressDone: done, progressTotal: total, error: null }).where(eq(erasureRequests.id, id)).run();
  };
}

/** Ends a request: its outcome written and its identifiers deleted in one transaction. */
function finish(ctx: ControlContext, id: string, outcome: Partial<ErasureRow>): void {
  ctx.db.transaction((tx) => {
    tx.update(erasureRequests).set({ ...outcome, completedAt: nowIso() }).where(eq(erasureRequests.id, id)).run();
    tx.delete(erasureSubjects).where(eq(erasureSubjects.requestId, id)).run();
  });
}

async function drive(ctx: ControlContext, row: ErasureRow): Promise<void> {
  const project = ctx.db.select().from(projects).where(eq(projects.id, row.projectId)).get()!;
  const link = ctx.regions.get(project.region as RegionCode);
  if (!link) {
    ctx.db.update(erasureRequests).set({ error: `region ${project.region} is not served by this control plane; retrying` }).where(eq(erasureRequests.id, row.id)).run();
    return;
  }
  const subjects = ctx.db.select().from(erasureSubjects).where(eq(erasureSubjects.requestId, row.id)).get()!.subjects as ErasureSubjects;
  ctx.db.update(erasureRequests).set({ status: "running", startedAt: row.startedAt ?? nowIso() }).where(eq(erasureRequests.id, row.id)).run();
  let report: RegionErasureReport;
  try {
    report = await link.erase(
      { erasure_id: row.id, project_id: project.id, data_id: project.dataId, environment: row.environment, person_ids: subjects.person_ids, distinct_ids: subjects.distinct_ids },
      recordProgress(ctx, row.id),
    );
  } catch (error) {
    if (isRefusal(error)) {
      finish(ctx, row.id, { status: "failed", error: (error as Error).message });
      return;
    }
    console.warn(`erasure ${row.id}: ${(error as Error).message}; retrying`);
    ctx.db.update(erasureRequests).set({ error: `${(error as Error).message}; retrying` }).where(eq(erasureRequests.id, row.id)).run();
    return;
  }
  const payload = certificatePayload(
    { issuer: ctx.baseUrl(), requestId: row.id, projectId: project.id, dataId: project.dataId, region: project.region, environment: row.environment, requestedAt: row.createdAt },
    report,
    nowIso(),
  );
  const certificate = await signCertificate(ctx.erasure.keys, payload);
  finish(ctx, row.id, { status: "completed", error: null, report: report as unknown as Record<string, unknown>, certificate });
}

export class ErasureRunner {
  private pass: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** The store still has to be scrubbed (at start: a crash may have come between an end and its scrub). */
  private scrubOwed = true;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(private readonly ctx: ControlContext) {
    this.timer = setInterval(() => this.wake(), erasureRetryIntervalMs);
  }

  /** Starts a pass over the unfinished requests, or asks the pass under way for one more. */
  wake(): void {
    if (this.stopped) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = this.run()
      .catch((error) => console.error("erasure runner failed:", error))
      .finally(() => {
        this.pass = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async run(): Promise<void> {
    const unfinished = this.ctx.db.select().from(erasureRequests).where(inArray(erasureRequests.status, ["pending", "running"]))
      .orderBy(asc(erasureRequests.createdAt), asc(insertionOrder)).all();
    for (const row of unfinished) {
      if (this.stopped) return;
      await drive(this.ctx, row);
      const ended = this.ctx.db.select({ status: erasureRequests.status }).from(erasureRequests).where(eq(erasureRequests.id, row.id)).get()!;
      if (ended.status === "completed" || ended.status === "failed") this.scrubOwed = true;
    }
    if (this.scrubOwed) this.scrubOwed = !scrubControlStore(this.ctx.db);
  }

  /** Stops the timer and waits for the request under way (it is resumed at the next start otherwise). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.pass;
  }
}
