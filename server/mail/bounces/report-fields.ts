/**
 * The header-like field groups of a machine-readable report part: `message/delivery-status`
 * (RFC 3464 section 2.1: per-message fields, a blank line, then one group per recipient) and
 * `message/feedback-report` (RFC 5965 section 3: one group). mailparser hands these parts over as
 * opaque attachments, so their fields are read here.
 */

/** Most characters of a report part read; real ones are a few hundred bytes per recipient. */
export const reportPartCharsMax = 64 * 1024;
/** Most field groups read (the per-message group plus recipients). */
export const fieldGroupsMax = 101;
/** Most fields read in one group; later ones are ignored. */
export const fieldsPerGroupMax = 64;
/** Most characters kept of one field value, folded lines included. */
export const fieldValueCharsMax = 4096;

/** One group: values by lower-case field name, in order of appearance (a field may repeat). */
export type FieldGroup = ReadonlyMap<string, readonly string[]>;

/** A field name: printable US-ASCII except the colon (RFC 5322 section 3.6.8). */
const fieldLine = /^([!-9;-~]+)[ \t]*:[ \t]*(.*)$/;

/**
 * Splits `text` into its field groups. Folded lines (starting with a space or a tab) continue the
 * field before them, joined with a line break so a multi-line SMTP reply keeps its lines. Lines
 * that are neither a field nor a continuation are skipped.
 */
export function parseFieldGroups(text: string): FieldGroup[] {
  const groups: Map<string, string[]>[] = [];
  let group = new Map<string, string[]>();
  let fieldCount = 0;
  let current: { values: string[]; index: number } | null = null;
  const closeGroup = () => {
    if (group.size > 0) groups.push(group);
    group = new Map();
    fieldCount = 0;
    current = null;
  };
  for (const line of text.slice(0, reportPartCharsMax).split(/\r\n|\r|\n/)) {
    if (groups.length >= fieldGroupsMax) break;
    if (line.trim() === "") {
      closeGroup();
      continue;
    }
    if (/^[ \t]/.test(line)) {
      if (current !== null) {
        const { values, index } = current;
        values[index] = (values[index] + "\n" + line.trim()).slice(0, fieldValueCharsMax);
      }
      continue;
    }
    const field = fieldLine.exec(line);
    if (!field || fieldCount >= fieldsPerGroupMax) {
      current = null;
      continue;
    }
    const name = field[1]!.toLowerCase();
    const values = group.get(name) ?? [];
    values.push((field[2] ?? "").trim().slice(0, fieldValueCharsMax));
    group.set(name, values);
    fieldCount += 1;
    current = { values, index: values.length - 1 };
  }
  closeGroup();
  return groups;
}

/** The first value of `name` in `group`, or null. */
export function firstField(group: FieldGroup, name: string): string | null {
  return group.get(name)?.[0] ?? null;
}

/**
 * A typed value (`rfc822; user@example.org`, `dns; mx.example.org`, `smtp; 550 …`) split into its
 * lower-case type and the rest; a value without a type keeps it null.
 */
export function splitTypedValue(value: string): { type: string | null; value: string } {
  const typed = /^[ \t]*([A-Za-z0-9][A-Za-z0-9.+-]*)[ \t]*;(.*)$/s.exec(value);
  if (!typed) return { type: null, value: value.trim() };
  return { type: typed[1]!.toLowerCase(), value: typed[2]!.trim() };
}
