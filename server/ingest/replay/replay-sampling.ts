// Whether a session is recorded under its project's replay policy: the sample rate (times the
// spend cap's keep ratio) decided from a hash of the session id, so every chunk of a session,
// whichever request or replica brings it, gets the same verdict; and the optional flag gate.
import type { ReplayPolicy } from "../../../storage/replay/replay-index.ts";

/** Sessions whose verdict is remembered (the oldest forgotten first): hours of busy traffic. */
export const sessionVerdictsMax = 100_000;

/** The session's place in [0, 1): the same for every chunk of it. */
export function sessionPoint(projectId: string, sessionId: string): number {
  // 53 bits of a 64-bit hash, the most a double holds exactly.
  return Number(Bun.hash.wyhash(`${projectId}:${sessionId}`) >> 11n) / 2 ** 53;
}

/** Whether the policy's sampling keeps the session (the flag gate is checked apart: it needs the person). */
export function sessionSampledIn(policy: ReplayPolicy, keepRatio: number, sessionId: string): boolean {
  return sessionPoint(policy.projectId, sessionId) < policy.sampleRate * keepRatio;
}

/**
 * Each session's verdict, decided at its first chunk and kept: the flag gate reads the person,
 * and a session whose person changes (identify, reset) must not be cut in two. Remembered in
 * memory for the newest sessionVerdictsMax sessions; after a restart a session is decided again.
 */
export class SessionVerdicts {
  private readonly verdicts = new Map<string, boolean>();

  /** The session's verdict, from `decide` the first time it is asked. */
  of(projectId: string, sessionId: string, decide: () => boolean): boolean {
    const key = `${projectId}:${sessionId}`;
    let verdict = this.verdicts.get(key);
    if (verdict === undefined) {
      verdict = decide();
      if (this.verdicts.size >= sessionVerdictsMax) this.verdicts.delete(this.verdicts.keys().next().value!);
      this.verdicts.set(key, verdict);
    }
    return verdict;
  }
}
