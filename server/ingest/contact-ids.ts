// A distinct id must never be an email address or a phone number (spec 2): native events with
// one are rejected. A migrating PostHog or Segment app sends them anyway (`distinctId:
// "jane@example.com"`), and its SDK never shows a rejection, so on the drop-in paths each such id
// becomes its pseudonym instead (pseudonyms.ts): the event's distinct id, its anonymous id
// (`anon_id`, and PostHog's `$anon_distinct_id` and `$device_id` properties) and an alias's
// target. The address itself is kept where personal data belongs, as the person property
// `$email` or `$phone` (masked without persons.pii), unless the event sets that property itself,
// and each replacement is counted as an ingestion warning (`pseudonymised_id`).
import { isPlainObject, type JsonObject } from "./json-values.ts";
import type { Warning } from "./ingestion-warnings.ts";
import { contactKind, pseudonym, type ContactKind } from "./pseudonyms.ts";

/** How a drop-in format names the ids, for the warnings' messages. */
export interface IdNames {
  distinctId: string;
  anonId: string;
  alias: string;
}

export const postHogIdNames: IdNames = { distinctId: "distinct_id", anonId: "$anon_distinct_id", alias: "alias" };
export const segmentIdNames: IdNames = { distinctId: "userId", anonId: "anonymousId", alias: "previousId" };

/** The person property that keeps a contact of each kind. */
const contactProperty: Record<ContactKind, string> = { email: "$email", phone: "$phone" };
const kindWords: Record<ContactKind, string> = { email: "an email address", phone: "a phone number" };

const warningOf = (name: string, kind: ContactKind): Warning => ({
  reason: "pseudonymised_id",
  message: `${name} looks like ${kindWords[kind]}; it is stored as a pseudonym (psn_…) with the ${kind === "email" ? "address" : "number"} `
    + `as the person property ${contactProperty[kind]}; send a user id instead`,
});

const isContact = (value: unknown): boolean => typeof value === "string" && contactKind(value) !== null;
/** PostHog's properties that carry the anonymous id. */
const anonymousIdProperties = ["$anon_distinct_id", "$device_id"];
const noWarnings: readonly Warning[] = [];

/** Whether any id of the mapped event is a contact: most events have none, and cost only these checks. */
function holdsContactId(native: JsonObject): boolean {
  if (isContact(native.distinct_id) || isContact(native.anon_id)) return true;
  const properties = native.properties;
  if (!isPlainObject(properties)) return false;
  return isContact(properties.$anon_distinct_id) || isContact(properties.$device_id) || (native.event === "$create_alias" && isContact(properties.alias));
}

/**
 * Replaces every id of the mapped event `native` that is an email address or phone number with
 * its pseudonym under `key()` (asked only when one is found), in place; returns a warning for
 * each id name and kind replaced.
 */
export function pseudonymiseContactIds(native: JsonObject, names: IdNames, key: () => Uint8Array): readonly Warning[] {
  if (!holdsContactId(native)) return noWarnings;
  const warnings: Warning[] = [];
  const noted = new Set<string>();
  /** The first contact of each kind, kept as a person property. */
  const kept = new Map<ContactKind, string>();
  /** The pseudonym of `value` when it is a contact (noting it under `name`), else `value` as it is. */
  const replaced = (value: unknown, name: string): unknown => {
    const kind = typeof value === "string" ? contactKind(value) : null;
    if (kind === null) return value;
    if (!kept.has(kind)) kept.set(kind, value as string);
    if (!noted.has(`${name}\u0000${kind}`)) {
      noted.add(`${name}\u0000${kind}`);
      warnings.push(warningOf(name, kind));
    }
    return pseudonym(key(), kind, value as string);
  };
  native.distinct_id = replaced(native.distinct_id, names.distinctId);
  if (native.anon_id !== undefined) native.anon_id = replaced(native.anon_id, names.anonId);
  const properties = native.properties;
  if (isPlainObject(properties)) {
    for (const name of anonymousIdProperties) if (name in properties) properties[name] = replaced(properties[name], names.anonId);
    if (native.event === "$create_alias" && "alias" in properties) properties.alias = replaced(properties.alias, names.alias);
  }
  const set = native.$set ?? {};
  if (isPlainObject(set)) {
    const written: JsonObject = { ...set };
    for (const [kind, contact] of kept) if (!Object.hasOwn(written, contactProperty[kind])) written[contactProperty[kind]] = contact;
    native.$set = written;
  }
  return warnings;
}
