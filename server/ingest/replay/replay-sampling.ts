// Whether a session is recorded under its project's replay policy: the sample rate (times the
// spend cap's keep ratio) decided from a hash of the session id, so every chunk of a session,
// whichever request or replica brings it, gets the same verdict; and the optional flag gate.
import type { ReplayPolicy } from "../../../storage/replay/replay-index.ts";

/** The session's place in [0, 1): the same for every chunk of it. */
export function sessionPoint(projectId: string, sessionId: string): number {
  // 53 bits of a 64-bit hash, the most a double holds exactly.
  return Number(Bun.hash.wyhash(`${projectId}:${sessionId}`) >> 11n) / 2 ** 53;
}

/** Whether the policy's sampling keeps the session (the flag gate is checked apart: it needs the person). */
export function sessionSampledIn(policy: ReplayPolicy, keepRatio: number, sessionId: string): boolean {
  return sessionPoint(policy.projectId, sessionId) < policy.sampleRate * keepRatio;
}
