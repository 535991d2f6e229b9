// Remembers recently accepted event uuids, so a retry of an acknowledged event is rejected as
// `duplicate` instead of being stored again. Open addressing over 128-bit keys in typed
// arrays (no Map in the hot path). Two generations bound memory: when the current one is
// full it becomes the previous one and the oldest uuids are forgotten; compaction still
// deduplicates by uuid, so forgetting never stores an event twice in the compacted files.

export const uuidIndexGenerationSize = 1 << 20;

class UuidTable {
  readonly slots: Uint32Array;
  count = 0;
  private readonly mask: number;

  constructor(readonly capacity: number) {
    // A power of two at least twice the capacity: the mask must reach every slot, and the
    // load factor stays at or under one half so probe chains stay short.
    const size = 2 ** Math.ceil(Math.log2(Math.max(2, capacity * 2)));
    this.slots = new Uint32Array(size * 4);
    this.mask = size - 1;
  }

  /** Index of the key's slot, or of the empty slot where it would go. */
  private find(a: number, b: number, c: number, d: number): number {
    let slot = (Math.imul(a ^ c, 0x9e3779b1) ^ (b ^ d)) & this.mask;
    for (;;) {
      const base = slot * 4;
      const s = this.slots;
      if ((s[base]! | s[base + 1]! | s[base + 2]! | s[base + 3]!) === 0) return slot;
      if (s[base] === a && s[base + 1] === b && s[base + 2] === c && s[base + 3] === d) return slot;
      slot = (slot + 1) & this.mask;
    }
  }

  has(a: number, b: number, c: number, d: number): boolean {
    const base = this.find(a, b, c, d) * 4;
    return this.slots[base] === a && this.slots[base + 1] === b && this.slots[base + 2] === c && this.slots[base + 3] === d && (a | b | c | d) !== 0;
  }

  /** False when the key was already present. */
  add(a: number, b: number, c: number, d: number): boolean {
    const base = this.find(a, b, c, d) * 4;
    const s = this.slots;
    if ((s[base]! | s[base + 1]! | s[base + 2]! | s[base + 3]!) !== 0) return false;
    s[base] = a;
    s[base + 1] = b;
    s[base + 2] = c;
    s[base + 3] = d;
    this.count++;
    return true;
  }

  remove(a: number, b: number, c: number, d: number): void {
    // Rebuild the probe chain after the removed slot (linear probing without tombstones).
    let slot = this.find(a, b, c, d);
    let base = slot * 4;
    if (!(this.slots[base] === a && this.slots[base + 1] === b && this.slots[base + 2] === c && this.slots[base + 3] === d)) return;
    this.slots.fill(0, base, base + 4);
    this.count--;
    for (;;) {
      slot = (slot + 1) & this.mask;
      base = slot * 4;
      const key = this.slots.slice(base, base + 4);
      if ((key[0]! | key[1]! | key[2]! | key[3]!) === 0) return;
      this.slots.fill(0, base, base + 4);
      this.count--;
      this.add(key[0]!, key[1]!, key[2]!, key[3]!);
    }
  }
}

/** Value of one hex digit (either case); callers pass validated uuids. */
function hexDigit(code: number): number {
  return code <= 57 ? code - 48 : (code | 32) - 87;
}

/** The 128 bits of a canonical uuid string into `out` as four 32-bit words (no allocation). */
function uuidWords(uuid: string, out: Uint32Array): void {
  let word = 0;
  let digits = 0;
  let index = 0;
  for (let i = 0; i < uuid.length; i++) {
    const code = uuid.charCodeAt(i);
    if (code === 45) continue;
    word = ((word << 4) | hexDigit(code)) >>> 0;
    if (++digits === 8) {
      out[index++] = word;
      word = 0;
      digits = 0;
    }
  }
}

const eventWords = new Uint32Array(4);
const projectWordsCache = new Map<string, Uint32Array>();

/** One region-wide index: a uuid counts as a duplicate only within its own project. */
function projectKey(projectId: string, uuid: string): Uint32Array {
  let project = projectWordsCache.get(projectId);
  if (!project) {
    project = new Uint32Array(4);
    uuidWords(projectId, project);
    projectWordsCache.set(projectId, project);
  }
  uuidWords(uuid, eventWords);
  eventWords[0]! ^= project[0]!;
  eventWords[1]! ^= project[1]!;
  eventWords[2]! ^= project[2]!;
  eventWords[3]! ^= project[3]!;
  return eventWords;
}

export class RecentUuidIndex {
  private current: UuidTable;
  private previous: UuidTable | null = null;

  constructor(private readonly generationSize = uuidIndexGenerationSize) {
    this.current = new UuidTable(generationSize);
  }

  has(projectId: string, uuid: string): boolean {
    const key = projectKey(projectId, uuid);
    const a = key[0]!, b = key[1]!, c = key[2]!, d = key[3]!;
    return this.current.has(a, b, c, d) || (this.previous?.has(a, b, c, d) ?? false);
  }

  /** Adds the uuid; false if it was already known. */
  add(projectId: string, uuid: string): boolean {
    const key = projectKey(projectId, uuid);
    const a = key[0]!, b = key[1]!, c = key[2]!, d = key[3]!;
    if (this.previous?.has(a, b, c, d)) return false;
    if (this.current.count >= this.generationSize) {
      this.previous = this.current;
      this.current = new UuidTable(this.generationSize);
    }
    return this.current.add(a, b, c, d);
  }

  /** Forgets a uuid that was reserved for a write that then failed. */
  remove(projectId: string, uuid: string): void {
    const key = projectKey(projectId, uuid);
    const a = key[0]!, b = key[1]!, c = key[2]!, d = key[3]!;
    this.current.remove(a, b, c, d);
    this.previous?.remove(a, b, c, d);
  }
}
