// `$ip`, the client's IP address as a property: ingest locates an event by it, and it is never
// stored (spec 2, Events). An event can carry it in four places that would be stored: its
// properties, the person properties it sets (`$set`, `$set_once`) and, for `$groupidentify`,
// the group properties (`properties.$group_set`). Ingest leaves it out of the WAL body and the
// storage worker out of the columns (records logged by earlier versions may still hold it),
// both by the two functions here.

export const ipProperty = "$ip";
/** The group properties a `$groupidentify` event sets. */
export const groupSetProperty = "$group_set";

type Values = Record<string, unknown>;

const holdsIpAt = (value: unknown): boolean => typeof value === "object" && value !== null && ipProperty in value;

/** `values` without `$ip` (the same object when it has none). */
function withoutIpAt(values: Values): Values {
  if (!(ipProperty in values)) return values;
  const { [ipProperty]: _dropped, ...kept } = values;
  return kept;
}

/** Whether a native event (as parsed; its properties an object) holds `$ip` in any of the four places. */
export function holdsIp(raw: Values): boolean {
  const properties = raw.properties as Values;
  return ipProperty in properties || holdsIpAt(raw.$set) || holdsIpAt(raw.$set_once) || holdsIpAt(properties[groupSetProperty]);
}

/** The native event without `$ip` in any of the four places (the same object when it holds none). */
export function withoutIp(raw: Values): Values {
  if (!holdsIp(raw)) return raw;
  let properties = withoutIpAt(raw.properties as Values);
  const groupSet = properties[groupSetProperty];
  if (holdsIpAt(groupSet)) properties = { ...properties, [groupSetProperty]: withoutIpAt(groupSet as Values) };
  const event: Values = { ...raw, properties };
  for (const field of ["$set", "$set_once"]) {
    if (holdsIpAt(raw[field])) event[field] = withoutIpAt(raw[field] as Values);
  }
  return event;
}
