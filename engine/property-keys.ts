// Which event property keys a chunk stores as columns: a typed `p_<key>` or, when the key's
// values mix types, `pj_<key>` (JSON text). Keys whose values are objects or arrays, and keys
// past the per-file column limit, live only in the `properties` JSON and are not listed: the
// executor does not read them either.
import type { ColumnType } from "./chunk-store.ts";
import { mixedPropertyColumnPrefix, propertyColumnPrefix } from "../storage/event-columns.ts";

export function propertyKeys(schema: Map<string, ColumnType>): string[] {
  const keys: string[] = [];
  for (const name of schema.keys()) {
    if (name.startsWith(propertyColumnPrefix)) keys.push(name.slice(propertyColumnPrefix.length));
    else if (name.startsWith(mixedPropertyColumnPrefix)) keys.push(name.slice(mixedPropertyColumnPrefix.length));
  }
  return keys;
}
