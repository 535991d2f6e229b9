import { refuseForbiddenCharacters } from "./characters.ts";
import { ComposeError, quotedKey } from "./errors.ts";

// Tags are metadata for search and webhooks, like Resend's: they are not written into the
// message (a recipient has no business reading a sender's campaign or customer ids).

export interface Tag {
  name: string;
  value: string;
}

export const tagsMax = 50;
export const tagPartLengthMax = 256;

const tagPartPattern = /^[A-Za-z0-9_-]+$/;

export function parseTags(input: unknown, field = "tags"): Tag[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) throw new ComposeError(field, "invalid_type", "must be an array of {name, value}");
  if (input.length > tagsMax) throw new ComposeError(field, "too_many", `at most ${tagsMax} tags; got ${input.length}`);
  const names = new Set<string>();
  return input.map((tag: unknown, index) => {
    const tagField = `${field}[${index}]`;
    if (typeof tag !== "object" || tag === null || Array.isArray(tag)) {
      throw new ComposeError(tagField, "invalid_type", "must be an object {name, value}");
    }
    const { name, value, ...unknown } = tag as Record<string, unknown>;
    const extra = Object.keys(unknown)[0];
    if (extra !== undefined) throw new ComposeError(`${tagField}[${quotedKey(extra)}]`, "unknown_field", "is not a tag field");
    const tagName = tagPart(name, `${tagField}.name`);
    if (names.has(tagName)) throw new ComposeError(`${tagField}.name`, "duplicate", "another tag has the same name");
    names.add(tagName);
    return { name: tagName, value: tagPart(value, `${tagField}.value`) };
  });
}

function tagPart(input: unknown, field: string): string {
  if (input === undefined || input === null) throw new ComposeError(field, "missing_field", "is required");
  if (typeof input !== "string") throw new ComposeError(field, "invalid_type", "must be a string");
  refuseForbiddenCharacters(input, field, { allowTab: false });
  if (input.length > tagPartLengthMax) throw new ComposeError(field, "too_long", `must be at most ${tagPartLengthMax} characters`);
  if (!tagPartPattern.test(input)) {
    throw new ComposeError(field, "invalid_value", "only ASCII letters, digits, underscores and dashes, at least one");
  }
  return input;
}
