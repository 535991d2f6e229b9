// Person (and group) properties with the stamp of the write that set each one, so the result
// does not depend on the order events arrive in: the latest `$set` by event time wins; a key
// only ever written by `$set_once` keeps the earliest write. Ties on time go to the larger
// event uuid, so replaying the same events changes nothing. `$ip` is never stored (spec 2, Events):
// a write of it is ignored. Keys are any string (own-keys.ts): `toString` or `__proto__` is a
// property like any other.
import { ipProperty } from "./ip-property.ts";
import { ownValue, setOwn } from "./own-keys.ts";

export interface PropertyStamp {
  /** Event time, epoch ms. */
  t: number;
  /** The event's uuid (tie-break). */
  u: string;
  /** Written by $set_once. */
  once: boolean;
}

export interface StampedProperties {
  values: Record<string, unknown>;
  stamps: Record<string, PropertyStamp>;
}

export const emptyProperties = (): StampedProperties => ({ values: {}, stamps: {} });

const later = (a: PropertyStamp, b: PropertyStamp) => a.t > b.t || (a.t === b.t && a.u > b.u);

/** Whether a write stamped `incoming` replaces the value stamped `current`. */
export function wins(incoming: PropertyStamp, current: PropertyStamp | undefined): boolean {
  if (!current) return true;
  if (!incoming.once) return current.once || later(incoming, current);
  return current.once && later(current, incoming);
}

/** Applies one event's `$set` and `$set_once`; returns whether anything changed. */
export function applyWrites(
  target: StampedProperties,
  time: number,
  uuid: string,
  set: Record<string, unknown> | null,
  setOnce: Record<string, unknown> | null,
): boolean {
  let changed = false;
  const write = (values: Record<string, unknown> | null, once: boolean) => {
    if (!values) return;
    for (const key in values) {
      if (key === ipProperty) continue;
      const stamp: PropertyStamp = { t: time, u: uuid, once };
      // A replayed write carries the same stamp, which never wins: replays change nothing.
      if (!wins(stamp, ownValue(target.stamps, key))) continue;
      setOwn(target.values, key, values[key]);
      setOwn(target.stamps, key, stamp);
      changed = true;
    }
  };
  write(setOnce, true);
  write(set, false);
  return changed;
}

/** Both persons' properties as one, by the same rule (the order of the arguments does not matter). */
export function mergeProperties(a: StampedProperties, b: StampedProperties): StampedProperties {
  const merged: StampedProperties = { values: { ...a.values }, stamps: { ...a.stamps } };
  for (const key in b.stamps) {
    if (wins(b.stamps[key]!, ownValue(merged.stamps, key))) {
      setOwn(merged.values, key, b.values[key]);
      setOwn(merged.stamps, key, b.stamps[key]!);
    }
  }
  return merged;
}
