// `$ip`, the client's IP address as a property: ingest locates an event by it, and it is never
// stored (spec 2, Events), wherever it sits in what an event stores: its properties, the person
// properties it sets (`$set`, `$set_once`), and any object inside them at any depth (PostHog's
// SDKs place `$set` inside properties; a client can nest anything). Ingest takes it out of the
// event before persons, the WAL and storage see it; the storage worker also drops a top-level
// one from the columns, for records logged by earlier versions.

export const ipProperty = "$ip";
/** The group properties a `$groupidentify` event sets. */
export const groupSetProperty = "$group_set";

type Values = Record<string, unknown>;

/** Whether `value` holds a `$ip` key in some object, at any depth (arrays included). */
export function holdsIpDeep(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsIpDeep(item)) return true;
    return false;
  }
  for (const key in value) {
    if (key === ipProperty || holdsIpDeep((value as Values)[key])) return true;
  }
  return false;
}

/** `value` without `$ip` keys at any depth, in one walk: copies only what held one, the same value otherwise. */
export function withoutIpDeep<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map(withoutIpDeep);
    return (items.some((item, index) => item !== value[index]) ? items : value) as T;
  }
  // A null prototype, so a `__proto__` key is kept as a key (storage/own-keys.ts).
  const kept: Values = Object.create(null);
  let changed = false;
  for (const key in value as Values) {
    const member = (value as Values)[key];
    if (key === ipProperty) {
      changed = true;
      continue;
    }
    kept[key] = withoutIpDeep(member);
    if (kept[key] !== member) changed = true;
  }
  return (changed ? kept : value) as T;
}

/** Whether a native event (as parsed) holds `$ip` anywhere it would be stored. */
export const holdsIp = (raw: Values): boolean => holdsIpDeep(raw.properties) || holdsIpDeep(raw.$set) || holdsIpDeep(raw.$set_once);

/** The native event without `$ip` anywhere it would be stored (the same object when it holds none). */
export function withoutIp(raw: Values): Values {
  if (!holdsIp(raw)) return raw;
  const event: Values = { ...raw, properties: withoutIpDeep(raw.properties) };
  for (const field of ["$set", "$set_once"]) if (field in raw) event[field] = withoutIpDeep(raw[field]);
  return event;
}
