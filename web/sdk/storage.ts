// Where the SDK keeps its state: a browser Storage (localStorage or sessionStorage) when the
// consent mode and the `persistence` option allow it, otherwise memory that lasts as long as
// the page. Switching moves the SDK's own keys across, so granting consent keeps the ids the
// page already used, and withdrawing it leaves nothing of ours behind in the browser.

export class SwitchableStore {
  private readonly memory = new Map<string, string>();
  private backing: Storage | null = null;

  constructor(private readonly keys: readonly string[]) {}

  /** Moves the SDK's keys to `next` (null: memory) and keeps using it. */
  use(next: Storage | null): void {
    if (next === this.backing) return;
    const values = this.keys.map((key) => [key, this.get(key)] as const);
    for (const key of this.keys) this.remove(key);
    this.backing = next;
    for (const [key, value] of values) if (value !== null) this.set(key, value);
  }

  get(key: string): string | null {
    try {
      return this.backing ? this.backing.getItem(key) : this.memory.get(key) ?? null;
    } catch {
      return this.memory.get(key) ?? null;
    }
  }

  set(key: string, value: string): void {
    try {
      if (this.backing) return this.backing.setItem(key, value);
    } catch {
      // A full or blocked Storage: the page goes on with memory.
    }
    this.memory.set(key, value);
  }

  remove(key: string): void {
    try {
      this.backing?.removeItem(key);
    } catch {
      // Nothing to remove from a Storage the browser blocks.
    }
    this.memory.delete(key);
  }

  readJson<T>(key: string): T | null {
    const text = this.get(key);
    if (text === null) return null;
    try {
      return JSON.parse(text) as T;
    } catch {
      return null;
    }
  }

  writeJson(key: string, value: unknown): void {
    this.set(key, JSON.stringify(value));
  }
}

/** A browser Storage when this page may use it (a sandboxed frame or a privacy mode may refuse). */
export function browserStorage(kind: "localStorage" | "sessionStorage"): Storage | null {
  try {
    const storage = window[kind];
    const probe = "__svca_probe__";
    storage.setItem(probe, probe);
    storage.removeItem(probe);
    return storage;
  } catch {
    return null;
  }
}
