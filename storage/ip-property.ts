// `$ip`, the client's IP address as a property: ingest locates an event by it, and it is never
// stored (spec 2, Events). An event can carry it in six places that would be stored: its
// properties; the person properties it sets (`$set`, `$set_once`); the same objects sent inside
// its properties (`properties.$set`, `properties.$set_once`, stored as event properties on the
// native path, as PostHog's SDKs place them); and, for `$groupidentify`, the group properties
// (`properties.$group_set`). Ingest leaves it out of the WAL body and the storage worker out of
// the columns (records logged by earlier versions may still hold it), both by the two functions
// here.

export const ipProperty = "$ip";
/** The group properties a `$groupidentify` event sets. */
export const groupSetProperty = "$group_set";
/** Objects of person or group properties an event's properties may hold. */
const nestedPropertyObjects = [groupSetProperty, "$set", "$set_once"];

type Values = Record<string, unknown>;

const holdsIpAt = (value: unknown): boolean => typeof value === "object" && value !== null && ipProperty in value;

/** `values` without `$ip` (the same object when it has none). */
function withoutIpAt(values: Values): Values {
  if (!(ipProperty in values)) return values;
  const { [ipProperty]: _dropped, ...kept } = values;
  return kept;
}

/** Whether a native event (as parsed; its properties an object) holds `$ip` in any of the six places. */
export function holdsIp(raw: Values): boolean {
  const properties = raw.properties as Values;
  return ipProperty in properties || holdsIpAt(raw.$set) || holdsIpAt(raw.$set_once) ||
    holdsIpAt(properties[groupSetProperty]) || holdsIpAt(properties.$set) || holdsIpAt(properties.$set_once);
}

/** The native event without `$ip` in any of the six places (the same object when it holds none). */
export function withoutIp(raw: Values): Values {
  if (!holdsIp(raw)) return raw;
  let properties = withoutIpAt(raw.properties as Values);
  for (const name of nestedPropertyObjects) {
    const nested = properties[name];
    if (holdsIpAt(nested)) properties = { ...properties, [name]: withoutIpAt(nested as Values) };
  }
  const event: Values = { ...raw, properties };
  for (const field of ["$set", "$set_once"]) {
    if (holdsIpAt(raw[field])) event[field] = withoutIpAt(raw[field] as Values);
  }
  return event;
}
