// The example an ingestion warning keeps of an event: JSON text of what the sender sent, cut
// to warningExampleCharactersMax characters, written without ever building more than that (an
// event may be 900 KiB, or nest too deep to write back whole). The event is hostile data: the
// excerpt is only ever stored and served as a string, never parsed or rendered as markup, and it
// holds no personal data the service can recognise: `$ip` is left out wherever it is, any value
// that is an email or IP address or a phone number reads "[masked]", and so does the value of a personal-data key
// (pii-mask.ts: email, phone, name and address keys, and the project's catalog PII) inside the
// objects that hold properties (`properties`, `$set`, `$set_once`, `$group_set`, `traits`).
// Outside them the keys are the format's own (`lib.name`, `context.app.name`) and keep their values.
import { isPersonalKey, isPersonalValue, maskedValue } from "../region/pii-mask.ts";
import { ipProperty } from "../../storage/ip-property.ts";
import { contactKind } from "./pseudonyms.ts";

/** The longest example kept, in UTF-16 units; a longer excerpt ends with `…`. */
export const warningExampleCharactersMax = 1000;
/** Keys whose value holds properties, in the native and drop-in formats. */
const propertyObjects: ReadonlySet<string> = new Set(["properties", "$set", "$set_once", "$group_set", "traits"]);
/** Objects and arrays nested deeper than this are written as `…`. */
const exampleDepthMax = 20;
const ellipsis = "…";

/** Text written in parts, cut (ending with `…`) at the first part that would take it past `max`. */
class BoundedText {
  private text = "";
  cut = false;

  constructor(private readonly max: number) {}

  write(part: string): void {
    if (this.cut) return;
    if (part.length <= this.max - this.text.length) {
      this.text += part;
      return;
    }
    const room = this.max - ellipsis.length - this.text.length;
    this.text = (room >= 0 ? this.text + part.slice(0, room) : this.text.slice(0, this.max - ellipsis.length)) + ellipsis;
    this.cut = true;
  }

  toString(): string {
    return this.text;
  }
}

/** JSON text of `source`, at most warningExampleCharactersMax long, without `$ip` and with personal data masked. */
export function warningExample(source: unknown, catalogPii: ReadonlySet<string>): string {
  const out = new BoundedText(warningExampleCharactersMax);
  /** Writes `value`; `inProperties`: it is (within) an object of properties, where keys may mark personal data. */
  const write = (value: unknown, depth: number, inProperties: boolean): void => {
    if (out.cut) return;
    // An email address or phone number as ingest's own rules see them (with white space around it, too).
    if (isPersonalValue(value) || (typeof value === "string" && contactKind(value) !== null)) return out.write(JSON.stringify(maskedValue));
    if (typeof value === "string") {
      // No more of a long string than can be shown.
      return out.write(JSON.stringify(value.slice(0, warningExampleCharactersMax)));
    }
    if (typeof value !== "object" || value === null) return out.write(JSON.stringify(value) ?? "null");
    if (depth >= exampleDepthMax) return out.write(ellipsis);
    const isArray = Array.isArray(value);
    out.write(isArray ? "[" : "{");
    let first = true;
    for (const key in value) {
      if (out.cut) return;
      if (!isArray && key === ipProperty) continue;
      if (!first) out.write(",");
      first = false;
      const item = (value as Record<string, unknown>)[key];
      if (!isArray) out.write(`${JSON.stringify(key.slice(0, warningExampleCharactersMax))}:`);
      if (isArray) write(item, depth + 1, inProperties);
      else if (inProperties && item !== null && item !== undefined && isPersonalKey(key, catalogPii)) out.write(JSON.stringify(maskedValue));
      else write(item, depth + 1, inProperties || propertyObjects.has(key));
    }
    out.write(isArray ? "]" : "}");
  };
  write(source, 0, false);
  return out.toString();
}

/** Where an event names its person, in the native and drop-in formats (top level, then within `properties`). */
const idKeys = ["distinct_id", "anon_id", "userId", "anonymousId", "previousId"] as const;
const idProperties = ["distinct_id", "$anon_distinct_id", "$device_id", "alias"] as const;
/** Ids kept beside an example, at most (an event names a few). */
const exampleIdsMax = 16;

/**
 * The ids `source` (an event as sent) names its person by, strings only, each as sent (the
 * caller stores a contact as its pseudonym): kept beside its example so an erasure finds the
 * example however masked or cut its text is.
 */
export function exampleIds(source: unknown): string[] {
  if (typeof source !== "object" || source === null || Array.isArray(source)) return [];
  const event = source as Record<string, unknown>;
  const properties = typeof event.properties === "object" && event.properties !== null && !Array.isArray(event.properties)
    ? (event.properties as Record<string, unknown>)
    : {};
  const ids = new Set<string>();
  for (const value of [...idKeys.map((key) => event[key]), ...idProperties.map((key) => properties[key])]) {
    if (typeof value === "string" && value !== "" && ids.size < exampleIdsMax) ids.add(value);
  }
  return [...ids];
}
