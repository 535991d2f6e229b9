// Idempotency-Key for /v1 writes, per token. Same key + same request within 24 h replays
// the stored response; same key + different request is 422; a first request still running
// is 409. 5xx answers are not kept, so a retry after a server error runs again.
import { and, eq, lt } from "drizzle-orm";
import { dayMs, nowIso } from "../../clock.ts";
import { ApiError, validation } from "../../http/errors.ts";
import { sha256Hex } from "../../crypto.ts";
import type { ControlContext } from "../context.ts";
import { idempotencyRecords } from "../db/schema.ts";
import { requestTimeoutMs } from "../limits.ts";

export const idempotencyKeyLengthMax = 255;
export const idempotencyRetentionMs = dayMs;
const visibleAscii = /^[\x21-\x7e]+$/;

export type IdempotencyStart =
  | { kind: "new" }
  | { kind: "replay"; status: number; body: unknown };

export function parseIdempotencyKey(raw: string | null): string | null {
  if (raw === null) return null;
  if (raw.length < 1 || raw.length > idempotencyKeyLengthMax || !visibleAscii.test(raw)) {
    throw validation(`Idempotency-Key must be 1-${idempotencyKeyLengthMax} visible ASCII characters`);
  }
  return raw;
}

export const requestFingerprint = (method: string, path: string, query: string, body: unknown) =>
  sha256Hex(JSON.stringify([method, path, query, body ?? null]));

/** Claims the key for this request, or says how to answer instead. */
export function startIdempotent(ctx: ControlContext, tokenId: string, key: string, fingerprint: string): IdempotencyStart {
  const now = Date.now();
  ctx.db
    .delete(idempotencyRecords)
    .where(lt(idempotencyRecords.createdAt, new Date(now - idempotencyRetentionMs).toISOString()))
    .run();
  const where = and(eq(idempotencyRecords.tokenId, tokenId), eq(idempotencyRecords.key, key));
  const existing = ctx.db.select().from(idempotencyRecords).where(where).get();
  if (existing) {
    const abandoned = existing.state === "in_progress" && now - Date.parse(existing.createdAt) > requestTimeoutMs;
    if (!abandoned) {
      if (existing.fingerprint !== fingerprint) {
        throw new ApiError(422, "idempotency_key_reused", "Idempotency-Key was already used with a different request");
      }
      if (existing.state === "in_progress") {
        throw new ApiError(409, "idempotency_in_progress", "a request with this Idempotency-Key is still running");
      }
      return { kind: "replay", status: existing.responseStatus!, body: existing.responseBody === null ? undefined : JSON.parse(existing.responseBody) };
    }
    ctx.db.delete(idempotencyRecords).where(where).run();
  }
  ctx.db
    .insert(idempotencyRecords)
    .values({ tokenId, key, fingerprint, state: "in_progress", responseStatus: null, responseBody: null, createdAt: nowIso() })
    .run();
  return { kind: "new" };
}

export function finishIdempotent(ctx: ControlContext, tokenId: string, key: string, status: number, body: unknown): void {
  const where = and(eq(idempotencyRecords.tokenId, tokenId), eq(idempotencyRecords.key, key));
  if (status >= 500) {
    ctx.db.delete(idempotencyRecords).where(where).run();
    return;
  }
  ctx.db
    .update(idempotencyRecords)
    .set({ state: "done", responseStatus: status, responseBody: body === undefined ? null : JSON.stringify(body) })
    .where(where)
    .run();
}
