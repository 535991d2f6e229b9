// Who is in the experiment: the units are canonical persons with an exposure event (the
// flag's key in `$feature_flag`, one of the variants in `$feature_flag_response`) in
// [from, to). A unit's variant and exposure time are those of its first exposure; a person
// exposed to more than one variant cannot be attributed to either and is left out (counted).
import type { SnapshotReader } from "./snapshot-reader.ts";

export const flagKeyProperty = "$feature_flag";
export const flagResponseProperty = "$feature_flag_response";

/** Variants are at most 20 (stats-request.ts), so the set a person saw fits in a 32-bit mask. */
const variantBit = (variant: number) => 1 << variant;

export interface ExposureQuery {
  event: string;
  flagKey: string;
  variants: string[];
  from: number;
  to: number;
}

/** The units, in parallel arrays: canonical person, variant index, first exposure (epoch ms). */
export interface Units {
  count: number;
  persons: Int32Array;
  variants: Uint8Array;
  exposedAt: Float64Array;
  /** Units per variant, in `variants` order. */
  perVariant: number[];
  /** Persons exposed to more than one variant, left out of every metric. */
  multipleExposures: number;
}

interface FirstExposure {
  at: number;
  variant: number;
  seen: number;
}

export async function readExposures(reader: SnapshotReader, query: ExposureQuery): Promise<Units> {
  const byPerson = new Map<number, FirstExposure>();
  for (const ref of reader.chunksIn(query.from, query.to)) {
    const chunk = await reader.load(ref, [flagKeyProperty, flagResponseProperty]);
    const eventCode = chunk.events.words.indexOf(query.event);
    if (eventCode < 0) continue;
    const flags = chunk.propertyText(flagKeyProperty);
    const flagCode = flags.words.indexOf(query.flagKey);
    if (flagCode < 0) continue;
    const responses = chunk.propertyText(flagResponseProperty);
    const variantOfWord = Int32Array.from(responses.words, (word) => query.variants.indexOf(word));
    const events = chunk.events.codes;
    const timestamps = chunk.timestamps;
    for (let row = 0; row < chunk.rows; row++) {
      if (events[row] !== eventCode || flags.codes[row] !== flagCode) continue;
      const response = responses.codes[row]!;
      const variant = response < 0 ? -1 : variantOfWord[response]!;
      const at = timestamps[row]!;
      if (variant < 0 || at < query.from || at >= query.to) continue;
      const person = chunk.persons[row]!;
      const known = byPerson.get(person);
      if (!known) byPerson.set(person, { at, variant, seen: variantBit(variant) });
      else {
        known.seen |= variantBit(variant);
        if (at < known.at) {
          known.at = at;
          known.variant = variant;
        }
      }
    }
  }
  return unitsOf(byPerson, query.variants.length);
}

function unitsOf(byPerson: Map<number, FirstExposure>, variantCount: number): Units {
  const single = [...byPerson].filter(([, exposure]) => exposure.seen === variantBit(exposure.variant));
  // Ordered by person, so the units (and any floating-point sums over them) do not depend on chunk order.
  single.sort(([a], [b]) => a - b);
  const units: Units = {
    count: single.length,
    persons: new Int32Array(single.length),
    variants: new Uint8Array(single.length),
    exposedAt: new Float64Array(single.length),
    perVariant: new Array<number>(variantCount).fill(0),
    multipleExposures: byPerson.size - single.length,
  };
  single.forEach(([person, exposure], unit) => {
    units.persons[unit] = person;
    units.variants[unit] = exposure.variant;
    units.exposedAt[unit] = exposure.at;
    units.perVariant[exposure.variant]!++;
  });
  return units;
}
