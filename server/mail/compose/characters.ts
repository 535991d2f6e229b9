import { ComposeError } from "./errors.ts";

// Characters refused in every value that ends up in a message header. CR and LF end a header
// line (the injection itself); NUL and the other C0 controls and DEL are not allowed in
// header text by RFC 5322 and some servers cut or split on them. U+0085 (NEL), U+2028 and
// U+2029 are not line breaks to SMTP, but several mail clients and JavaScript-based
// parsers treat them as ones, and no legitimate header needs them, so they are refused too.
// Percent-encoded forms such as "%0d%0a" are plain text to every mail program and pass.
const namedCharacters: Record<number, string> = {
  0x00: "NUL",
  0x09: "TAB",
  0x0a: "LF",
  0x0d: "CR",
  0x7f: "DEL",
  0x85: "NEL",
  0x2028: "LINE SEPARATOR",
  0x2029: "PARAGRAPH SEPARATOR",
};

const isForbidden = (code: number, allowTab: boolean): boolean =>
  (code < 0x20 && !(allowTab && code === 0x09)) || code === 0x7f || code === 0x85 || code === 0x2028 || code === 0x2029;

function describe(code: number): string {
  const hex = code.toString(16).toUpperCase().padStart(4, "0");
  const name = namedCharacters[code];
  return name ? `${name} (U+${hex})` : `control character U+${hex}`;
}

/** Refuses line breaks and control characters in a header-bound value. Unstructured
 * header text (a subject, a custom header's value) may hold a TAB; nothing else may. */
export function refuseForbiddenCharacters(value: string, field: string, options: { allowTab: boolean }): void {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (isForbidden(code, options.allowTab)) {
      throw new ComposeError(field, "forbidden_character", `must not contain ${describe(code)}`);
    }
  }
}
