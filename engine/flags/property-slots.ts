// The properties a flag set's conditions read, numbered once when the set is compiled, and a
// reader that works out each one's value and compared forms at most once per subject. Many
// conditions read the same few properties (a plan, a country, an email); lowercasing each
// value once per request instead of once per condition is most of what matching costs.
import type { FlagSubject } from "./subject.ts";
import { asciiLowercase, equalityText } from "./property-values.ts";

export interface PropertySlot {
  /** null for a person property, else the group type whose properties hold it. */
  groupTypeIndex: number | null;
  key: string;
}

/** Numbers each distinct (person or group type, key) once. */
export class PropertySlots {
  readonly slots: PropertySlot[] = [];
  private readonly numbers = new Map<string, number>();

  slotOf(groupTypeIndex: number | null, key: string): number {
    const name = `${groupTypeIndex ?? ""}\u0000${key}`;
    let slot = this.numbers.get(name);
    if (slot === undefined) {
      slot = this.slots.length;
      this.slots.push({ groupTypeIndex, key });
      this.numbers.set(name, slot);
    }
    return slot;
  }
}

// Generation stamps say which entries belong to the current subject, so nothing is cleared
// between subjects; at the top of the range every stamp is reset once.
const GENERATION_MAX = 0xffff_ffff;

/**
 * Reads slots of one subject at a time: start() switches subjects. One reader serves one
 * evaluation at a time (evaluation is synchronous), and its arrays are reused for the next.
 */
export class SlotReader {
  private subject: FlagSubject | null = null;
  private generation = 0;
  private readonly valueStamps: Uint32Array;
  private readonly equalityStamps: Uint32Array;
  private readonly substringStamps: Uint32Array;
  private readonly values: unknown[];
  private readonly equalityTexts: string[];
  private readonly substringTexts: string[];

  constructor(private readonly slots: readonly PropertySlot[]) {
    this.valueStamps = new Uint32Array(slots.length);
    this.equalityStamps = new Uint32Array(slots.length);
    this.substringStamps = new Uint32Array(slots.length);
    this.values = new Array<unknown>(slots.length).fill(undefined);
    this.equalityTexts = new Array<string>(slots.length).fill("");
    this.substringTexts = new Array<string>(slots.length).fill("");
  }

  start(subject: FlagSubject): void {
    this.subject = subject;
    if (this.generation === GENERATION_MAX) {
      this.generation = 0;
      this.valueStamps.fill(0);
      this.equalityStamps.fill(0);
      this.substringStamps.fill(0);
    }
    this.generation++;
  }

  /** Whether the subject's person is in the cohort's stored membership. */
  inCohort(cohortId: string): boolean {
    return this.subject!.inCohort(cohortId);
  }

  /** Whether the subject has a group of that type. */
  inGroup(groupTypeIndex: number): boolean {
    return this.subject!.groupKey(groupTypeIndex) !== undefined;
  }

  /** The slot's value, undefined when absent. A group slot is read only for a subject in that group. */
  value(slot: number): unknown {
    if (this.valueStamps[slot] !== this.generation) {
      const { groupTypeIndex, key } = this.slots[slot]!;
      this.values[slot] = groupTypeIndex === null ? this.subject!.personProperty(key) : this.subject!.groupProperty(groupTypeIndex, key);
      this.valueStamps[slot] = this.generation;
    }
    return this.values[slot];
  }

  /** The lowercased equality text of a present value (property-values.ts: equalityText). */
  equalityText(slot: number): string {
    if (this.equalityStamps[slot] !== this.generation) {
      this.equalityTexts[slot] = equalityText(this.value(slot)).toLowerCase();
      this.equalityStamps[slot] = this.generation;
    }
    return this.equalityTexts[slot]!;
  }

  /** The text the substring operators search: String(value) with ASCII letters folded. */
  substringText(slot: number): string {
    if (this.substringStamps[slot] !== this.generation) {
      this.substringTexts[slot] = asciiLowercase(String(this.value(slot)));
      this.substringStamps[slot] = this.generation;
    }
    return this.substringTexts[slot]!;
  }
}
