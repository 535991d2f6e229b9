/**
 * Bounded, single-line text from untrusted mail content. Bounce and complaint reports are written
 * by whoever sends them, so every string they yield is cut to a known length and stripped of what
 * could forge a log line, a header or a misleading display (line breaks, control characters,
 * bidirectional overrides) before it goes anywhere else.
 */

/** C0 and C1 controls (line breaks included) and the Unicode bidi embedding/override/isolate marks. */
const unsafeCharacters = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f]+/g;

/** Mark appended where text was cut, so a reader knows it was. */
const truncationMark = "…";

/**
 * Collapses `raw` to one line of at most `maxChars` characters (code points, so a cut never splits
 * a surrogate pair): controls and line breaks become spaces, runs of spaces shrink to one.
 */
export function oneLine(raw: string, maxChars: number): string {
  // Whitespace collapses, so look at a few times the kept length and no further: the work stays
  // bounded however long the input is.
  // toWellFormed: the cut may split a surrogate pair, and input may hold lone surrogates anyway.
  const scanned = raw.slice(0, maxChars * 4).toWellFormed();
  const codePoints = Array.from(scanned.replace(unsafeCharacters, " ").replace(/\s+/g, " ").trim());
  if (codePoints.length <= maxChars && raw.length <= maxChars * 4) return codePoints.join("");
  return codePoints.slice(0, maxChars - 1).join("").trimEnd() + truncationMark;
}

/** `oneLine`, or null when nothing printable is left. */
export function oneLineOrNull(raw: string | null | undefined, maxChars: number): string | null {
  if (raw === null || raw === undefined) return null;
  const line = oneLine(raw, maxChars);
  return line === "" ? null : line;
}

/** Longest address we accept (RFC 5321 caps a path at 256 octets, angle brackets included). */
export const addressCharsMax = 254;

/** Conservative mailbox shape: no spaces, controls, brackets, quotes or commas; one `@`; a dotted domain. */
const mailboxShape = /^[^\s@<>()[\]",;:\\\u0000-\u001f\u007f]+@[^\s@<>()[\]",;:\\\u0000-\u001f\u007f]+\.[^\s@<>()[\]",;:\\\u0000-\u001f\u007f.]+$/u;

/**
 * The mailbox in `raw` (angle brackets and surrounding spaces removed, domain lower-cased), or null
 * when it is not a plain `local@domain` address. Quoted local parts are refused on purpose: a
 * report's recipient feeds the suppression list, which must never hold something that is not an
 * address we could have sent to.
 */
export function mailboxOrNull(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const trimmed = raw.trim().replace(/^<(.*)>$/s, "$1").trim();
  if (trimmed.length > addressCharsMax || !mailboxShape.test(trimmed)) return null;
  const at = trimmed.lastIndexOf("@");
  return trimmed.slice(0, at) + "@" + trimmed.slice(at + 1).toLowerCase();
}

/** Longest Message-ID we accept: a header line's limit (RFC 5322 section 2.1.1). */
export const messageIdCharsMax = 998;

/** `<id-left@id-right>` with nothing that could break out of a header or a log line. */
const messageIdShape = /^<[^\s<>\u0000-\u001f\u007f]+>$/u;

/** The Message-ID in `raw` with its angle brackets, or null when it is not one. */
export function messageIdOrNull(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const trimmed = raw.trim();
  const bracketed = trimmed.startsWith("<") ? trimmed : `<${trimmed}>`;
  if (bracketed.length > messageIdCharsMax || !messageIdShape.test(bracketed)) return null;
  return bracketed;
}
