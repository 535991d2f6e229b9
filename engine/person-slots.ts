// Which intervals each person was active in, as one bitset per person over dense person ids:
// lifecycle and stickiness only need the set of (person, interval) pairs, not each event in
// time order, so a bit per pair replaces gathering and sorting per-person event streams.
// When persons x intervals would pass the memory bound, persons are taken in ranges, one
// range per pass over the chunks (PersonSlotPass.covers tells the kind which rows to add).

/** Memory bound of one pass's bitsets (about 16M persons x 32 daily intervals). */
export const personSlotBytesMax = 64 * 2 ** 20;

export class PersonSlotPass {
  /** 32-bit words per person. */
  readonly words: number;
  private bits: Uint32Array;

  /** Persons first <= p < end (end = Infinity: every person from `first` up). */
  constructor(readonly slotCount: number, readonly first: number, readonly end: number, expectedPersons: number) {
    this.words = Math.max(1, Math.ceil(slotCount / 32));
    this.bits = new Uint32Array(Math.max(1, expectedPersons) * this.words);
  }

  covers(person: number): boolean {
    return person >= this.first && person < this.end;
  }

  /** Marks `slot` for a person this pass covers. */
  add(person: number, slot: number): void {
    const at = (person - this.first) * this.words + (slot >>> 5);
    // Persons created after the query read the person store have ids past its end.
    if (at >= this.bits.length) this.grow(at);
    this.bits[at]! |= 1 << (slot & 31);
  }

  private grow(at: number): void {
    const grown = new Uint32Array(Math.max(at + this.words, this.bits.length * 2));
    grown.set(this.bits);
    this.bits = grown;
  }

  /** Calls visit(person, bits, offset) for each person with a slot set; slot s is bit s & 31 of bits[offset + (s >>> 5)]. */
  forEachPerson(visit: (person: number, bits: Uint32Array, offset: number) => void): void {
    const { bits, words } = this;
    for (let offset = 0; offset < bits.length; offset += words) {
      let any = 0;
      for (let w = 0; w < words; w++) any |= bits[offset + w]!;
      if (any !== 0) visit(this.first + offset / words, bits, offset);
    }
  }
}

/** Passes covering every person id (the store's `personCount`, and any created since). */
export function* personSlotPasses(personCount: number, slotCount: number, bytesMax = personSlotBytesMax): Generator<PersonSlotPass> {
  const words = Math.max(1, Math.ceil(slotCount / 32));
  const perPass = Math.max(1, Math.floor(bytesMax / 4 / words));
  for (let first = 0; ; first += perPass) {
    const last = first + perPass >= personCount;
    yield new PersonSlotPass(slotCount, first, last ? Infinity : first + perPass, Math.min(perPass, Math.max(personCount - first, 0)));
    if (last) return;
  }
}

/** Number of set bits of a 32-bit word. */
export function bitCount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}
