// Remembers recently accepted event uuids, so a retry of an acknowledged event is rejected as
// `duplicate` instead of being stored again. Open addressing over 128-bit keys in typed
// arrays (no Map in the hot path). Two generations bound memory: when the current one is
// full it becomes the previous one and the oldest uuids are forgotten. Compaction removes a
// uuid's second copy only within a part it writes or a merge of parts, so a retry that comes
// after its uuid was forgotten can stay stored twice (a known limit, in the README).

export const uuidIndexGenerationSize = 1 << 20;
/** The most uuids the index remembers: two generations. */
export const uuidIndexCapacity = 2 * uuidIndexGenerationSize;

/** An open-addressing set of 128-bit keys in a typed array, for at most `capacity` keys. */
export class UuidTable {
  readonly slots: Uint32Array;
  count = 0;
  /**
   * The latest time (UUIDv7's leading 48 bits, as its high 32 and low 16) of any uuid added:
   * a uuid stamped later cannot be in the table, so a full table is only probed for uuids at
   * least as old as its newest (a retry, or events an SDK held back), not for every new event.
   */
  latestHigh = -1;
  latestLow = -1;
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

/** Each character's value as a hex digit (either case), -1 for anything else. */
const hexValues = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) {
  hexValues["0123456789abcdef".charCodeAt(digit)] = digit;
  hexValues["0123456789ABCDEF".charCodeAt(digit)] = digit;
}
const uuidTextLength = 36;
const dashPositions = [8, 13, 18, 23];

/** The value of the `count` (at most 8) hex digits at `at` in `text`, or -1 when one is not a hex digit. */
function hexRun(text: string, at: number, count: number): number {
  let word = 0;
  for (let i = at; i < at + count; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? hexValues[code]! : -1;
    if (digit < 0) return -1;
    word = (word << 4) | digit;
  }
  return word >>> 0;
}

/**
 * Reads a canonical uuid (8-4-4-4-12 hex digits, either case) into four 32-bit words; false
 * when `text` is not one. One pass over fixed positions, no regular expression: ingest checks
 * every event's uuid and session ids this way.
 */
export function uuidWords(text: string, out: Uint32Array): boolean {
  if (text.length !== uuidTextLength) return false;
  for (const at of dashPositions) if (text.charCodeAt(at) !== 45) return false;
  // Words 1 and 2 straddle a dash: each is two runs of 4 digits.
  const first = hexRun(text, 0, 8);
  const secondHigh = hexRun(text, 9, 4);
  const secondLow = hexRun(text, 14, 4);
  const thirdHigh = hexRun(text, 19, 4);
  const thirdLow = hexRun(text, 24, 4);
  const fourth = hexRun(text, 28, 8);
  if (first < 0 || secondHigh < 0 || secondLow < 0 || thirdHigh < 0 || thirdLow < 0 || fourth < 0) return false;
  out[0] = first;
  out[1] = (secondHigh << 16) | secondLow;
  out[2] = (thirdHigh << 16) | thirdLow;
  out[3] = fourth;
  return true;
}

// The byte twins of hexRun and uuidWords stay separate: one reader over `string | Uint8Array`
// measured 20-100% slower per uuid (50 ns here) on both ingest's and compaction's paths.

/** The value of the hex digits in bytes [at, at + count) (at most 8), or -1 when one is not a hex digit. */
function hexRunOfBytes(bytes: Uint8Array, at: number, count: number): number {
  let word = 0;
  for (let i = at; i < at + count; i++) {
    const code = bytes[i]!;
    const digit = code < 128 ? hexValues[code]! : -1;
    if (digit < 0) return -1;
    word = (word << 4) | digit;
  }
  return word >>> 0;
}

/** uuidWords for a uuid's UTF-8 bytes [start, end) (compaction reads them from column buffers). */
export function uuidWordsOfBytes(bytes: Uint8Array, start: number, end: number, out: Uint32Array): boolean {
  if (end - start !== uuidTextLength) return false;
  for (const at of dashPositions) if (bytes[start + at] !== 45) return false;
  const first = hexRunOfBytes(bytes, start, 8);
  const secondHigh = hexRunOfBytes(bytes, start + 9, 4);
  const secondLow = hexRunOfBytes(bytes, start + 14, 4);
  const thirdHigh = hexRunOfBytes(bytes, start + 19, 4);
  const thirdLow = hexRunOfBytes(bytes, start + 24, 4);
  const fourth = hexRunOfBytes(bytes, start + 28, 8);
  if (first < 0 || secondHigh < 0 || secondLow < 0 || thirdHigh < 0 || thirdLow < 0 || fourth < 0) return false;
  out[0] = first;
  out[1] = (secondHigh << 16) | secondLow;
  out[2] = (thirdHigh << 16) | thirdLow;
  out[3] = fourth;
  return true;
}

const checkedWords = new Uint32Array(4);

/** A canonical UUIDv7: version nibble 7, variant bits 10. */
export function isUuidV7(value: unknown): value is string {
  if (typeof value !== "string" || !uuidWords(value, checkedWords)) return false;
  return ((checkedWords[1]! >>> 12) & 0xf) === 7 && checkedWords[2]! >>> 30 === 2;
}

const eventWords = new Uint32Array(4);
const projectWordsCache = new Map<string, Uint32Array>();
/** The uuid's time before the project is mixed in: its leading 32 bits and the 16 after them. */
let keyTimeHigh = 0;
let keyTimeLow = 0;

/** One region-wide index: a uuid counts as a duplicate only within its own project. */
function projectKey(projectId: string, uuid: string): Uint32Array {
  let project = projectWordsCache.get(projectId);
  if (!project) {
    project = new Uint32Array(4);
    if (!uuidWords(projectId, project)) throw new Error(`project id ${projectId} is not a uuid`);
    projectWordsCache.set(projectId, project);
  }
  if (!uuidWords(uuid, eventWords)) throw new Error(`${uuid} is not a uuid`);
  keyTimeHigh = eventWords[0]!;
  keyTimeLow = eventWords[1]! >>> 16;
  eventWords[0]! ^= project[0]!;
  eventWords[1]! ^= project[1]!;
  eventWords[2]! ^= project[2]!;
  eventWords[3]! ^= project[3]!;
  return eventWords;
}

/** Whether the uuid whose key projectKey made last may be in `table` (it is not stamped after all of the table's). */
const mayHold = (table: UuidTable) => keyTimeHigh < table.latestHigh || (keyTimeHigh === table.latestHigh && keyTimeLow <= table.latestLow);

export class RecentUuidIndex {
  private current: UuidTable;
  private previous: UuidTable | null = null;
  /** How many uuids were ever removed (each for a write that failed). */
  removals = 0;

  constructor(private readonly generationSize = uuidIndexGenerationSize) {
    this.current = new UuidTable(generationSize);
  }

  has(projectId: string, uuid: string): boolean {
    const key = projectKey(projectId, uuid);
    const a = key[0]!, b = key[1]!, c = key[2]!, d = key[3]!;
    return this.current.has(a, b, c, d) || (this.previous !== null && mayHold(this.previous) && this.previous.has(a, b, c, d));
  }

  /** Adds the uuid; false if it was already known. */
  add(projectId: string, uuid: string): boolean {
    const key = projectKey(projectId, uuid);
    const a = key[0]!, b = key[1]!, c = key[2]!, d = key[3]!;
    if (this.previous !== null && mayHold(this.previous) && this.previous.has(a, b, c, d)) return false;
    if (this.current.count >= this.generationSize) {
      this.previous = this.current;
      this.current = new UuidTable(this.generationSize);
    }
    const current = this.current;
    if (!current.add(a, b, c, d)) return false;
    if (keyTimeHigh > current.latestHigh || (keyTimeHigh === current.latestHigh && keyTimeLow > current.latestLow)) {
      current.latestHigh = keyTimeHigh;
      current.latestLow = keyTimeLow;
    }
    return true;
  }

  /** Forgets a uuid that was reserved for a write that then failed. */
  remove(projectId: string, uuid: string): void {
    this.removals++;
    const key = projectKey(projectId, uuid);
    const a = key[0]!, b = key[1]!, c = key[2]!, d = key[3]!;
    this.current.remove(a, b, c, d);
    this.previous?.remove(a, b, c, d);
  }
}
