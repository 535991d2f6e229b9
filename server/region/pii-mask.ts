// Personal-data masking for the persons and groups routes: a token without `persons.pii`
// sees "[masked]" in place of each personal-data value. Personal data is a property whose
// name says so (email, phone, name, address, IP, in any common spelling), any property the
// project's catalog marks as PII, and any value that is itself an email address or an IP
// address, whatever its key. Nested objects and arrays are masked the same way.
import { isIP } from "node:net";
import { setOwn } from "../../storage/own-keys.ts";

export const maskedValue = "[masked]";

/** Key names (normalised: no leading `$`, snake_case, lower case) that hold personal data. */
const personalKeyNames: ReadonlySet<string> = new Set([
  "email", "e_mail", "mail", "email_address",
  "phone", "phone_number", "telephone", "tel", "mobile", "mobile_number", "mobile_phone",
  "name", "first_name", "last_name", "full_name", "given_name", "family_name", "surname", "middle_name",
  "address", "street", "street_address", "address_line_1", "address_line1", "address_line_2", "address_line2",
  "postal_address", "home_address",
  "ip", "ip_address", "ipv4", "ipv6",
]);
/** Suffixes that mark a key as personal data (work_email, billing_address, contact_phone, ...). */
const personalKeySuffixes = ["_email", "_email_address", "_phone", "_phone_number", "_address", "_ip"];

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function normaliseKey(key: string): string {
  return key
    .replace(/^\$+/, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[\s.-]+/g, "_")
    .toLowerCase();
}

export function isPersonalKey(key: string, catalogPii: ReadonlySet<string>): boolean {
  if (catalogPii.has(key)) return true;
  const name = normaliseKey(key);
  return personalKeyNames.has(name) || personalKeySuffixes.some((suffix) => name.endsWith(suffix));
}

/** A value that identifies someone on its own: an email address or an IP address. */
export function isPersonalValue(value: unknown): boolean {
  return typeof value === "string" && (emailPattern.test(value) || isIP(value) !== 0);
}

function maskValue(value: unknown, catalogPii: ReadonlySet<string>): unknown {
  if (isPersonalValue(value)) return maskedValue;
  if (Array.isArray(value)) return value.map((item) => maskValue(item, catalogPii));
  if (value !== null && typeof value === "object") return maskProperties(value as Record<string, unknown>, catalogPii);
  return value;
}

/** A copy of `properties` with every personal-data value replaced by maskedValue. */
export function maskProperties(properties: Record<string, unknown>, catalogPii: ReadonlySet<string>): Record<string, unknown> {
  const masked: Record<string, unknown> = {};
  for (const key in properties) {
    const value = properties[key];
    setOwn(masked, key, value !== null && value !== undefined && isPersonalKey(key, catalogPii) ? maskedValue : maskValue(value, catalogPii));
  }
  return masked;
}
