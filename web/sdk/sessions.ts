// Session and window ids. A session is shared by every tab of the site (kept with the SDK's
// other state) and ends after sessionIdleMs without activity; the next activity starts a new
// one. A window id names one tab (kept in its sessionStorage).
//
// Recording chunks' sequence numbers are the milliseconds since the session began (its id is a
// UUIDv7, which holds that instant), kept increasing within a tab: tabs and pages of one
// session never share a counter, so two tabs cannot take the same number from a counter that
// localStorage shows each of them late (the service deduplicates by session and seq).
import type { SwitchableStore } from "./storage.ts";
import { uuidv7 } from "./uuid.ts";

export const sessionIdleMs = 30 * 60_000;

/** The largest sequence number ingest takes (docs/replay.md): about 24 days after a session began. */
export const chunkSeqMax = 2 ** 31 - 1;

interface StoredSession {
  id: string;
  /** Epoch ms of the last activity. */
  last: number;
}

/** When a session began: the millisecond timestamp in the first 48 bits of its UUIDv7. */
const sessionStartMs = (sessionId: string) => parseInt(sessionId.replace(/-/g, "").slice(0, 12), 16);

export class Sessions {
  /** The last sequence number this tab gave each session's chunks. */
  private readonly lastSeqs = new Map<string, number>();

  constructor(
    private readonly store: SwitchableStore,
    private readonly key: string,
    private readonly tabStore: SwitchableStore,
    private readonly windowKey: string,
  ) {}

  private read(): StoredSession | null {
    const session = this.store.readJson<StoredSession>(this.key);
    return session && typeof session.id === "string" && typeof session.last === "number" ? session : null;
  }

  /** The current session's id: a new session when the last one was idle too long. `touch` counts as activity. */
  current(touch: boolean, now = Date.now()): string {
    let session = this.read();
    if (!session || now - session.last > sessionIdleMs) {
      session = { id: uuidv7(now), last: now };
    } else if (touch) {
      session.last = now;
    } else {
      return session.id;
    }
    this.store.writeJson(this.key, session);
    return session.id;
  }

  /** The next recording sequence number of `sessionId` in this tab: its age in ms, above the tab's last one (null past chunkSeqMax). */
  nextSeq(sessionId: string, now = Date.now()): number | null {
    const seq = Math.max(now - sessionStartMs(sessionId), (this.lastSeqs.get(sessionId) ?? -1) + 1, 0);
    if (seq > chunkSeqMax) return null;
    this.lastSeqs.set(sessionId, seq);
    return seq;
  }

  /** Forgets the session (reset): the next activity starts a new one. */
  end(): void {
    this.store.remove(this.key);
  }

  windowId(): string {
    let id = this.tabStore.get(this.windowKey);
    if (!id) {
      id = uuidv7();
      this.tabStore.set(this.windowKey, id);
    }
    return id;
  }
}
