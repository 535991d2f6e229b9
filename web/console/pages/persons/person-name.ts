// What to call a person in lists and headings: a name or email they were given (unless it is
// masked), else their first distinct id, else their id.
import type { Person } from "../../api/persons-api.ts";
import { maskedValue } from "./personal-data.tsx";

const nameKeys = ["name", "$name", "email", "$email", "username", "$username"];

export function personName(person: Person): string {
  for (const key of nameKeys) {
    const value = Object.hasOwn(person.properties, key) ? person.properties[key] : undefined;
    if (typeof value === "string" && value.trim() !== "" && value !== maskedValue) return value;
  }
  return person.distinct_ids[0] ?? person.id;
}

/** Up to `count` properties to show beside a person in a list: ones not starting with `$` first. */
export function sampleProperties(properties: Record<string, unknown>, count: number): [string, unknown][] {
  const keys = Object.keys(properties).sort((a, b) => Number(a.startsWith("$")) - Number(b.startsWith("$")) || a.localeCompare(b));
  return keys.slice(0, count).map((key) => [key, properties[key]]);
}
