// A set of persons as a bitset over the dense person index (bit p of word p >>> 5): cohort
// criteria each give one, and groups combine them a word at a time. A set has a fixed size,
// the persons the person store had when the evaluation started; later persons are in none.
import { bitCount } from "../person-slots.ts";

export class PersonSet {
  readonly words: Uint32Array;

  constructor(readonly size: number) {
    this.words = new Uint32Array(Math.ceil(size / 32));
  }

  /** Every current person below `size`: index i whose canonical person is itself (the others were merged away); indexes past `canonical` are persons created since. */
  static current(canonical: Int32Array, size: number): PersonSet {
    const set = new PersonSet(size);
    for (let person = 0; person < size; person++) if (person >= canonical.length || canonical[person] === person) set.add(person);
    return set;
  }

  /** Stored person indexes, each counted as the person it is now (merges since applied); persons past `size` are left out. */
  static ofMembers(members: Int32Array, canonical: Int32Array, size: number): PersonSet {
    const set = new PersonSet(size);
    const known = canonical.length;
    for (let at = 0; at < members.length; at++) {
      const member = members[at]!;
      const person = member < known ? canonical[member]! : member;
      if (person < size) set.add(person);
    }
    return set;
  }

  add(person: number): void {
    this.words[person >>> 5]! |= 1 << (person & 31);
  }

  remove(person: number): void {
    this.words[person >>> 5]! &= ~(1 << (person & 31));
  }

  has(person: number): boolean {
    return person < this.size && (this.words[person >>> 5]! & (1 << (person & 31))) !== 0;
  }

  copy(): PersonSet {
    const copy = new PersonSet(this.size);
    copy.words.set(this.words);
    return copy;
  }

  /** this = this AND other. */
  and(other: PersonSet): this {
    for (let word = 0; word < this.words.length; word++) this.words[word]! &= other.words[word]!;
    return this;
  }

  /** this = this OR other. */
  or(other: PersonSet): this {
    for (let word = 0; word < this.words.length; word++) this.words[word]! |= other.words[word]!;
    return this;
  }

  /** this = this AND NOT other. */
  andNot(other: PersonSet): this {
    for (let word = 0; word < this.words.length; word++) this.words[word]! &= ~other.words[word]!;
    return this;
  }

  count(): number {
    let count = 0;
    for (let word = 0; word < this.words.length; word++) count += bitCount(this.words[word]!);
    return count;
  }

  /** The persons in the set, ascending. */
  members(): Int32Array {
    const members = new Int32Array(this.count());
    let at = 0;
    for (let word = 0; word < this.words.length; word++) {
      let bits = this.words[word]!;
      while (bits !== 0) {
        const low = bits & -bits;
        members[at++] = word * 32 + (31 - Math.clz32(low));
        bits ^= low;
      }
    }
    return members;
  }
}
