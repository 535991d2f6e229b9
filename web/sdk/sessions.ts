// Session and window ids. A session is shared by every tab of the site (kept with the SDK's
// other state) and ends after sessionIdleMs without activity; the next activity starts a new
// one. A window id names one tab (kept in its sessionStorage). The session also carries the
// next recording chunk's sequence number, so a second page continues the first one's.
import type { SwitchableStore } from "./storage.ts";
import { uuidv7 } from "./uuid.ts";

export const sessionIdleMs = 30 * 60_000;

interface StoredSession {
  id: string;
  /** Epoch ms of the last activity. */
  last: number;
  /** The next recording chunk's sequence number. */
  seq: number;
}

export class Sessions {
  /** The next sequence number of sessions that ended while their recording still had chunks to send. */
  private readonly ended = new Map<string, number>();

  constructor(
    private readonly store: SwitchableStore,
    private readonly key: string,
    private readonly tabStore: SwitchableStore,
    private readonly windowKey: string,
  ) {}

  private read(): StoredSession | null {
    const session = this.store.readJson<StoredSession>(this.key);
    return session && typeof session.id === "string" && typeof session.last === "number" && typeof session.seq === "number" ? session : null;
  }

  /** The current session's id: a new session when the last one was idle too long. `touch` counts as activity. */
  current(touch: boolean, now = Date.now()): string {
    let session = this.read();
    if (!session || now - session.last > sessionIdleMs) {
      if (session) this.ended.set(session.id, session.seq);
      session = { id: uuidv7(now), last: now, seq: 0 };
    } else if (touch) {
      session.last = now;
    } else {
      return session.id;
    }
    this.store.writeJson(this.key, session);
    return session.id;
  }

  /** Takes the next recording sequence number of `sessionId`. */
  nextSeq(sessionId: string): number {
    const session = this.read();
    if (session?.id === sessionId) {
      this.store.writeJson(this.key, { ...session, seq: session.seq + 1 });
      return session.seq;
    }
    const seq = this.ended.get(sessionId) ?? 0;
    this.ended.set(sessionId, seq + 1);
    return seq;
  }

  /** Forgets the session (reset): the next activity starts a new one. */
  end(): void {
    const session = this.read();
    if (session) this.ended.set(session.id, session.seq);
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
