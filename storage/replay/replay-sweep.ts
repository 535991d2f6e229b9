// Deletes recordings nobody may keep: past their project's retention (by their events' time), and
// sessions over (no chunk received for sessionIdleMs, by the server's clock) that stayed shorter
// than the project's minimum duration.
import type { ReplayStore } from "./replay-store.ts";

/** A session with no new chunk for this long is over (the SDKs start a new one after 30 minutes of inactivity). */
export const sessionIdleMs = 30 * 60_000;
/** Sessions deleted per project per sweep, so one sweep never holds the event loop for long. */
const sweepSessionsMax = 1000;
const dayMs = 86_400_000;

/** One sweep at `nowMs`; how many recordings it deleted. */
export async function sweepReplays(store: ReplayStore, retentionDays: (projectId: string) => number | null, nowMs: number): Promise<number> {
  let deleted = 0;
  for (const projectId of store.index.projects()) {
    const days = retentionDays(projectId);
    const expired = days === null ? [] : store.index.expiredSessions(projectId, nowMs - days * dayMs, sweepSessionsMax);
    const { minDurationMs } = store.index.policy(projectId);
    const short = minDurationMs > 0 ? store.index.quietShortSessions(projectId, nowMs - sessionIdleMs, minDurationMs, sweepSessionsMax) : [];
    const sessions = new Map([...expired, ...short].map((session) => [`${session.environment}\u0000${session.sessionId}`, session]));
    await store.deleteSessions([...sessions.values()]);
    deleted += sessions.size;
  }
  return deleted;
}
