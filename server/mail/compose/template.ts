import { refuseForbiddenCharacters } from "./characters.ts";
import { ComposeError, quotedKey } from "./errors.ts";

// Templates: `{{name}}` (spaces inside the braces allowed) is replaced by the variable's
// value: HTML-escaped in the html, as is in the text and the subject. Substitution is one
// pass: a value that itself contains `{{other}}` is not expanded again. A placeholder whose
// variable was not given is an error naming it (sending "Hello ," to a customer is worse than
// a refused request); variables the template does not use are allowed, so a template can
// drop a placeholder without breaking its senders.

/** A stored template, as the store hands it over. */
export interface StoredTemplate {
  subject: string | null;
  html: string | null;
  text: string | null;
}

type TemplateVariables = ReadonlyMap<string, string>;

export const templateIdLengthMax = 128;
export const templateVariablesMax = 100;
export const templateVariableNameLengthMax = 64;

const variableNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
const placeholderPattern = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** `variables` from the request: an object of names to strings, numbers or booleans. */
function parseTemplateVariables(input: unknown, field: string): TemplateVariables {
  if (input === undefined || input === null) return new Map();
  if (typeof input !== "object" || Array.isArray(input)) throw new ComposeError(field, "invalid_type", "must be an object");
  const entries = Object.entries(input);
  if (entries.length > templateVariablesMax) {
    throw new ComposeError(field, "too_many", `at most ${templateVariablesMax} variables; got ${entries.length}`);
  }
  const variables = new Map<string, string>();
  for (const [name, value] of entries) {
    const variableField = `${field}[${quotedKey(name)}]`;
    if (name.length > templateVariableNameLengthMax) {
      throw new ComposeError(variableField, "too_long", `a name must be at most ${templateVariableNameLengthMax} characters`);
    }
    if (!variableNamePattern.test(name)) {
      throw new ComposeError(variableField, "invalid_value", "a name is ASCII letters, digits and _, not starting with a digit");
    }
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      throw new ComposeError(variableField, "invalid_type", "must be a string, a number or a boolean");
    }
    variables.set(name, String(value));
  }
  return variables;
}

/** The placeholders a template text uses, in order of first use. */
export function templatePlaceholders(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(placeholderPattern), (match) => match[1]!))];
}

/**
 * The UTF-16 index of the first `{{` in `template` that opens no placeholder a send can fill
 * (not closed, not a variable name, or a name longer than a request's variables may have), or
 * null when there is none. Substitution leaves such text as it is; a stored template is checked
 * with this so the typo is refused when the template is saved, not mailed to customers.
 */
export function strayPlaceholderIndex(template: string): number | null {
  let from = 0;
  for (const match of template.matchAll(placeholderPattern)) {
    const stray = template.slice(from, match.index).indexOf("{{");
    if (stray !== -1) return from + stray;
    if (match[1]!.length > templateVariableNameLengthMax) return match.index;
    from = match.index + match[0].length;
  }
  const stray = template.indexOf("{{", from);
  return stray === -1 ? null : stray;
}

const asIs = (value: string): string => value;

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * Replaces the placeholders of `template`. Stops with `tooLongCode` as soon as the result
 * passes `lengthMax` UTF-16 units, so a short request cannot expand into gigabytes.
 */
function substitute(
  template: string,
  variables: TemplateVariables,
  options: {
    escape: (value: string) => string;
    lengthMax: number;
    tooLongCode: "too_long" | "too_large";
    field: string;
    variablesField: string;
  },
): string {
  const parts: string[] = [];
  let length = 0;
  let from = 0;
  const append = (part: string): void => {
    length += part.length;
    if (length > options.lengthMax) {
      const detail = `is longer than ${options.lengthMax} characters after template substitution`;
      throw new ComposeError(options.field, options.tooLongCode, detail);
    }
    parts.push(part);
  };
  for (const match of template.matchAll(placeholderPattern)) {
    const name = match[1]!;
    const value = variables.get(name);
    if (value === undefined) {
      throw new ComposeError(
        `${options.variablesField}[${quotedKey(name)}]`,
        "template_variable_missing",
        "the template uses this variable; give it a value",
      );
    }
    append(template.slice(from, match.index));
    append(options.escape(value));
    from = match.index + match[0].length;
  }
  append(template.slice(from));
  return parts.join("");
}

export interface ResolvedTemplate {
  id: string;
  /** The substituted subject; null when the template has none or the request gave its own. */
  subject: string | null;
  html: string | null;
  text: string | null;
}

const templateFields = new Set(["id", "variables"]);
const templateIdPattern = /^[\x21-\x7e]+$/;

/** The request's `template` ({id, variables}) applied to the stored template it names. */
export async function resolveTemplate(
  input: unknown,
  findTemplate: (id: string) => StoredTemplate | null | Promise<StoredTemplate | null>,
  limits: { subjectLengthMax: number; htmlBytesMax: number; textBytesMax: number; subjectGiven: boolean },
): Promise<ResolvedTemplate> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ComposeError("template", "invalid_type", "must be an object {id, variables}");
  }
  const request = input as Record<string, unknown>;
  const unknown = Object.keys(request).find((key) => !templateFields.has(key));
  if (unknown !== undefined) throw new ComposeError(`template[${quotedKey(unknown)}]`, "unknown_field", "is not a template field");
  const id = parseTemplateId(request.id);
  const variablesField = "template.variables";
  const variables = parseTemplateVariables(request.variables, variablesField);
  const stored = await findTemplate(id);
  if (stored === null) throw new ComposeError("template.id", "template_not_found", "no template with this id");
  const subject =
    limits.subjectGiven || !stored.subject
      ? null
      : substituteSubject(stored.subject, variables, limits.subjectLengthMax, variablesField);
  const body = (template: string | null, field: string, escape: (value: string) => string, lengthMax: number) =>
    template ? substitute(template, variables, { escape, lengthMax, tooLongCode: "too_large", field, variablesField }) : null;
  const html = body(stored.html, "html", escapeHtml, limits.htmlBytesMax);
  const text = body(stored.text, "text", asIs, limits.textBytesMax);
  if (html === null && text === null) throw new ComposeError("template.id", "invalid_value", "the template has neither html nor text");
  return { id, subject, html, text };
}

/** A template's id: what a send request's `template.id` names and what the store keeps it under. */
export function parseTemplateId(input: unknown, field = "template.id"): string {
  if (input === undefined || input === null) throw new ComposeError(field, "missing_field", "is required");
  if (typeof input !== "string") throw new ComposeError(field, "invalid_type", "must be a string");
  if (input.length > templateIdLengthMax) {
    throw new ComposeError(field, "too_long", `must be at most ${templateIdLengthMax} characters`);
  }
  if (!templateIdPattern.test(input)) throw new ComposeError(field, "invalid_value", "must be printable ASCII without spaces");
  return input;
}

// A value that lands in the subject lands in a header: it gets the header rules, and the
// refusal names the variable, since the template itself is fine.
function substituteSubject(subject: string, variables: TemplateVariables, lengthMax: number, variablesField: string): string {
  for (const name of templatePlaceholders(subject)) {
    const value = variables.get(name);
    if (value !== undefined) refuseForbiddenCharacters(value, `${variablesField}[${quotedKey(name)}]`, { allowTab: true });
  }
  // Twice the limit in UTF-16 units: the real bound (code points) is checked on the result.
  return substitute(subject, variables, {
    escape: asIs,
    lengthMax: 2 * lengthMax,
    tooLongCode: "too_long",
    field: "subject",
    variablesField,
  });
}
