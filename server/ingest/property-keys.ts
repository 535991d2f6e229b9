// Which keys may name a property: of an event's `properties`, of the person properties it sets
// (`$set`, `$set_once`), of the group properties it sets (`properties.$group_set`) and a group
// type in `groups`. Each such key becomes a name elsewhere (a column in every file that holds
// it, a name in SQL, a person property shown in the console), so a key is refused when it:
//   - is longer than propertyKeyLengthMax characters (Unicode code points);
//   - holds a control character: C0 (U+0000-U+001F, NUL, tab and newline among them), DEL
//     (U+007F) or C1 (U+0080-U+009F). A NUL cut the SQL view of its project at the key;
//   - holds an unpaired UTF-16 surrogate (JSON's "\ud800" escape): it is no character at all,
//     UTF-8 cannot hold it, and writing it out would turn it into U+FFFD, so two different keys
//     could become one.
// Everything else is a key as sent: quotes, backslashes, spaces, emoji, any case ("Plan" and
// "plan" are two properties).
import { propertyKeyLengthMax } from "./limits.ts";

export type KeyProblem = "length" | "control" | "surrogate";

/** What is wrong with `key` as a property name, or null when nothing is. */
export function keyProblem(key: string): KeyProblem | null {
  let characters = 0;
  for (let i = 0; i < key.length; i++, characters++) {
    const unit = key.charCodeAt(i);
    if (unit < 0x20 || (unit >= 0x7f && unit <= 0x9f)) return "control";
    if (unit >= 0xd800 && unit <= 0xdfff) {
      // A high surrogate followed by a low one is one character; any other surrogate is unpaired.
      const next = key.charCodeAt(i + 1);
      if (unit > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return "surrogate";
      i++;
    }
  }
  return characters > propertyKeyLengthMax ? "length" : null;
}

/** The first problem among the keys of `values`, or null when every key may name a property. */
export function keysProblem(values: Record<string, unknown>): KeyProblem | null {
  for (const key in values) {
    const problem = keyProblem(key);
    if (problem !== null) return problem;
  }
  return null;
}

/** The rejection's message for a key of `where` (a field name such as `$set`) with `problem`. */
export function keyMessage(where: string, problem: KeyProblem): string {
  switch (problem) {
    case "length":
      return `${where} is longer than ${propertyKeyLengthMax} characters`;
    case "control":
      return `${where} contains a control character (U+0000 to U+001F, U+007F to U+009F)`;
    case "surrogate":
      return `${where} contains an unpaired UTF-16 surrogate`;
  }
}
