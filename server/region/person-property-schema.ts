// GET /schema/person-properties (docs/sql.md, "Schema"): the person property keys of the
// token's project, read from its newest persons so the answer costs the same however large the
// project is, typed the way event properties are typed.
import { personsExaminedPerPageMax, type PersonDirectory } from "../../storage/person-directory.ts";
import type { PropertyType } from "./schema-service.ts";

/** Persons read per answer, newest first (reading 10,000 persons' keys takes a few tens of ms). */
export const personPropertySampleMax = personsExaminedPerPageMax;
/** Keys listed per answer, most common first. */
export const personPropertyKeysMax = 1_000;

export interface PersonPropertySchema {
  key: string;
  type: PropertyType;
  /** Persons of the sample having the key (with any value, null included). */
  persons: number;
}

const numberTypes = new Set(["integer", "real"]);
const boolTypes = new Set(["true", "false"]);

/** number or bool when every value that is not null is one; otherwise text. */
function keyType(types: Set<string>): PropertyType {
  const present = [...types].filter((type) => type !== "null");
  if (present.length > 0 && present.every((type) => numberTypes.has(type))) return "number";
  if (present.length > 0 && present.every((type) => boolTypes.has(type))) return "bool";
  return "text";
}

export function personPropertySchema(directory: PersonDirectory, projectId: string): { properties: PersonPropertySchema[]; persons_sampled: number } {
  const { sampled, keys } = directory.personPropertyKeys(projectId, personPropertySampleMax);
  const byKey = new Map<string, { types: Set<string>; persons: number }>();
  for (const { key, type, persons } of keys) {
    const known = byKey.get(key) ?? { types: new Set<string>(), persons: 0 };
    known.types.add(type);
    known.persons += persons;
    byKey.set(key, known);
  }
  const properties = [...byKey]
    .map(([key, { types, persons }]) => ({ key, type: keyType(types), persons }))
    .sort((a, b) => b.persons - a.persons || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, personPropertyKeysMax);
  return { properties, persons_sampled: sampled };
}
