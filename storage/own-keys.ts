// Records keyed by data from ingest (property names, group types) are plain objects, as
// JSON.parse makes them, and a key may be any string: `__proto__`, `toString`, `constructor`.
// Reading such a record by key must see only its own keys (not Object.prototype's members), and
// writing one must make an own key (assigning to `__proto__` sets the prototype instead).

/** `record[key]` when `key` is the record's own, else undefined. */
export const ownValue = <T>(record: Record<string, T>, key: string): T | undefined => (Object.hasOwn(record, key) ? record[key] : undefined);

/** Sets `record[key] = value` as an own key, whatever the key. */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}
