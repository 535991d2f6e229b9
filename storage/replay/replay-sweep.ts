// Deletes recordings nobody may keep: past their project's retention, and sessions over (quiet
// for sessionIdleMs) that stayed shorter than the project's minimum duration.
import type { ReplayStore } from "./replay-store.ts";

/** A session with no new chunk for this long is over (the SDKs start a new one after 30 minutes of inactivity). */
export const sessionIdleMs = 30 * 60_000;
/** Sessions deleted per project per sweep, so one sweep never holds the event loop for long. */
const sweepSessionsMax = 1000;
const dayMs = 86_400_000;

/** One sweep at `nowMs`; how many recordings it deleted. */
export function sweepReplays(store: ReplayStore, retentionDays: (projectId: string) => number | null, nowMs: number): number {
  let deleted = 0;
  for (const projectId of store.index.projects()) {
    const days = retentionDays(projectId);
    const expired = days === null ? [] : store.index.endedSessions(projectId, nowMs - days * dayMs, null, sweepSessionsMax);
    const { minDurationMs } = store.index.policy(projectId);
    const short = minDurationMs > 0 ? store.index.endedSessions(projectId, nowMs - sessionIdleMs, minDurationMs, sweepSessionsMax) : [];
    const done = new Set<string>();
    for (const session of [...expired, ...short]) {
      const key = `${session.environment}\u0000${session.sessionId}`;
      if (done.has(key)) continue;
      done.add(key);
      store.deleteSession(session);
      deleted++;
    }
  }
  return deleted;
}
