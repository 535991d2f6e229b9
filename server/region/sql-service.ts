// Runs POST /sql for one region (docs/sql.md): one read-only SELECT on DuckDB over an `events`
// view of the token's project environment only, including rows not compacted or sealed yet.
// The statement runs in a sandbox process that can read exactly that partition's files; it
// shares the per-project concurrency gate and the time-out of POST /query.
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { snapshotChunks, type ChunkRef, type ChunkStore } from "../../engine/chunk-store.ts";
import { runInSandbox } from "../../engine/sql/sandbox-runner.ts";
import { sandboxSlots, type SlotRefusal } from "../../engine/sql/sandbox-slots.ts";
import type { RefusalKind, SelectAnswer, SqlParam } from "../../engine/sql/select-statement.ts";
import { sandboxMemoryLimitBytes } from "../../engine/sql/sandbox.ts";
import { viewFiles, viewProperties } from "../../engine/sql/view-files.ts";
import type { ViewFile } from "../../engine/sql/view.ts";
import { ApiError } from "../http/errors.ts";
import { queryTimeoutMs, tooManyConcurrentQueries, type QueryGate } from "./query-service.ts";
import type { RegionClaims } from "./region-auth.ts";
import type { RegionNode } from "./region-node.ts";

/** Rows an answer holds at most; past it the answer says `truncated`. */
export const sqlRowsMax = 10_000;
/** Bound of the rows' JSON in an answer, so a few wide rows cannot make an answer of gigabytes. */
export const sqlAnswerBytesMax = 32 * 1024 * 1024;

/** Snapshots taken before giving up when compaction keeps replacing files under a request. */
export const snapshotAttemptsMax = 3;

const emptyDirectory = (dir: string) => {
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true });
};

export interface SqlRequest {
  sql: string;
  params?: SqlParam[];
}

export interface SqlServiceOptions {
  /** Scratch space for copies of recent rows; owned by the service (emptied when it starts). */
  scratchDir: string;
  timeoutMs?: number;
}

function busyError(refusal: SlotRefusal): ApiError {
  const message = refusal === "tenant"
    ? `an organisation runs at most ${sandboxSlots.perTenantMax} SQL statements at once across its projects; retry when one has finished`
    : `the server runs at most ${sandboxSlots.max} SQL statements at once; retry shortly`;
  return new ApiError(429, "too_many_concurrent_queries", message, { "Retry-After": "1" });
}

function refusalError(kind: RefusalKind, message: string, timeoutMs: number): ApiError {
  switch (kind) {
    case "invalid":
      return new ApiError(400, "invalid_query", message);
    case "forbidden":
      return new ApiError(403, "forbidden", message);
    case "timeout":
      return new ApiError(422, "query_too_large", `the query ran past the ${timeoutMs / 1000} s limit; filter or aggregate more`);
    case "memory":
      return new ApiError(422, "query_too_large", `the query needs more than ${sandboxMemoryLimitBytes / 1024 ** 3} GiB of memory; filter or aggregate more`);
  }
}

export class SqlService {
  private readonly scratchDir: string;
  private readonly timeoutMs: number;

  constructor(private readonly node: RegionNode, private readonly columns: ChunkStore, private readonly gate: QueryGate, options: SqlServiceOptions) {
    this.scratchDir = options.scratchDir;
    this.timeoutMs = options.timeoutMs ?? queryTimeoutMs;
    // Left over by a process that stopped mid-request: nothing else uses these copies.
    rmSync(this.scratchDir, { recursive: true, force: true });
    mkdirSync(this.scratchDir, { recursive: true });
  }

  /** A snapshot of the partition with its files pinned in `scratch` (see viewFiles). */
  private async pinnedSnapshot(claims: RegionClaims, scratch: string): Promise<{ chunks: ChunkRef[]; files: ViewFile[] }> {
    for (let attempt = 1; ; attempt++) {
      const chunks = snapshotChunks(await this.node.events.snapshot(claims.dataId, claims.environment), this.node.dataDir);
      try {
        return { chunks, files: await viewFiles(chunks, this.columns, scratch) };
      } catch (error) {
        this.columns.release(chunks);
        // A compaction deleted a file of the snapshot before it was pinned: take a fresh one.
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt === snapshotAttemptsMax) throw error;
        emptyDirectory(scratch);
      }
    }
  }

  async run(claims: RegionClaims, request: SqlRequest): Promise<SelectAnswer> {
    // DuckDB reads SQL text up to its first NUL: the rest would be dropped without a word.
    if (request.sql.includes("\u0000")) throw new ApiError(400, "invalid_query", "the statement contains NUL (U+0000), which would cut it short; remove it");
    const deadline = Date.now() + this.timeoutMs;
    const release = this.gate.tryAcquire(claims.projectId);
    if (!release) throw tooManyConcurrentQueries();
    // The server's sandbox processes, which every region's /sql shares.
    const slot = sandboxSlots.tryAcquire(claims.orgId);
    if ("refused" in slot) {
      release();
      throw busyError(slot.refused);
    }
    let chunks: ChunkRef[] = [];
    let scratch: string | null = null;
    try {
      scratch = mkdtempSync(join(this.scratchDir, "q-"));
      const pinned = await this.pinnedSnapshot(claims, scratch);
      chunks = pinned.chunks;
      const files = pinned.files;
      const reply = await runInSandbox({
        files,
        properties: viewProperties(files),
        canonical: this.node.store.directory.canonicalIndexes(claims.projectId),
        sql: request.sql,
        params: request.params ?? [],
        limits: { rowsMax: sqlRowsMax, bytesMax: sqlAnswerBytesMax, deadline },
        cwd: scratch,
      });
      if ("answer" in reply) return reply.answer;
      if ("refusal" in reply) throw refusalError(reply.refusal.kind, reply.refusal.message, this.timeoutMs);
      throw new Error(`/sql failed: ${reply.failure}`);
    } finally {
      if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
      this.columns.release(chunks);
      slot.release();
      release();
    }
  }
}
