import { describe, expect, test } from "bun:test";
import {
  strayPlaceholderIndex,
  templatePlaceholders,
  templateVariableNameLengthMax,
  templateVariablesMax,
  type StoredTemplate,
} from "../../../server/mail/compose/template.ts";
import { htmlBytesMax, validateSendRequest } from "../../../server/mail/compose/validate.ts";
import { refusalOf, refused } from "./refusal.ts";

const now = new Date("2026-11-27T12:00:00.000Z");
const welcome: StoredTemplate = {
  subject: "Welcome, {{ first_name }}!",
  html: "<h1>Hello {{first_name}}</h1><p>Your plan: {{plan}}. Again: {{ first_name }}. Literal: {{not a placeholder}}</p>",
  text: "Hello {{first_name}}, plan {{plan}}.",
};
const templates = new Map<string, StoredTemplate>([
  ["welcome", welcome],
  ["text-only", { subject: null, html: null, text: "Code: {{code}}" }],
  ["empty", { subject: "s", html: null, text: "" }],
]);
// The store may be asynchronous (PostgreSQL); the lookup is awaited.
const findTemplate = async (id: string) => templates.get(id) ?? null;
const base = { from: "Acme <hello@acme.com>", to: "jane@example.com" };
const send = (body: Record<string, unknown>) => validateSendRequest({ ...base, ...body }, { now, findTemplate });


describe("templates", () => {
  test("variables are HTML-escaped in the html, raw in the text and the subject", async () => {
    const email = await send({ template: { id: "welcome", variables: { first_name: `<Tom & "Jerry's">`, plan: 42 } } });
    expect({ subject: email.subject, html: email.html, text: email.text, templateId: email.templateId }).toEqual({
      subject: `Welcome, <Tom & "Jerry's">!`,
      html:
        "<h1>Hello &#60;Tom &#38; &#34;Jerry&#39;s&#34;&#62;</h1><p>Your plan: 42. Again: &#60;Tom &#38; &#34;Jerry&#39;s&#34;&#62;. " +
        "Literal: {{not a placeholder}}</p>",
      text: `Hello <Tom & "Jerry's">, plan 42.`,
      templateId: "welcome",
    });
  });

  test("substitution is one pass: a value holding a placeholder is not expanded", async () => {
    const email = await send({ template: { id: "welcome", variables: { first_name: "{{plan}}", plan: true } } });
    expect([email.subject, email.text]).toEqual(["Welcome, {{plan}}!", "Hello {{plan}}, plan true."]);
  });

  test("a variable the template uses but the request lacks is refused; unused ones are allowed", async () => {
    expect(await refusalOf(() => send({ template: { id: "welcome", variables: { first_name: "Tom" } } }))).toEqual(
      refused('template.variables["plan"]', "template_variable_missing", "the template uses this variable; give it a value"),
    );
    const email = await send({ template: { id: "text-only", variables: { code: "123456", unused: "x" } }, subject: "Your code" });
    expect({ subject: email.subject, html: email.html, text: email.text }).toEqual({ subject: "Your code", html: null, text: "Code: 123456" });
  });

  test("the request's subject replaces the template's, as given (no substitution)", async () => {
    const email = await send({ subject: "Hi {{first_name}}", template: { id: "welcome", variables: { first_name: "Tom", plan: "pro" } } });
    expect(email.subject).toBe("Hi {{first_name}}");
  });

  test("a subject is needed from the request or the template", async () => {
    expect(await refusalOf(() => send({ template: { id: "text-only", variables: { code: "1" } } }))).toEqual(
      refused("subject", "missing_field", "is required (the template has no subject)"),
    );
  });

  test("a variable landing in the subject keeps it one line, and its refusal names the variable", async () => {
    expect(await refusalOf(() => send({ template: { id: "welcome", variables: { first_name: "Tom\r\nBcc: x@evil.com", plan: "p" } } }))).toEqual(
      refused('template.variables["first_name"]', "forbidden_character", "must not contain CR (U+000D)"),
    );
    // The same value in a body only (the request gives its own subject) is body text and passes.
    const email = await send({ subject: "Hi", template: { id: "welcome", variables: { first_name: "Tom\r\nBcc: x@evil.com", plan: "p" } } });
    expect(email.text).toBe("Hello Tom\r\nBcc: x@evil.com, plan p.");
  });

  test("a subject too long after substitution is refused", async () => {
    expect(await refusalOf(() => send({ template: { id: "welcome", variables: { first_name: "n".repeat(990), plan: "p" } } }))).toEqual(
      refused("subject", "too_long", "must be at most 998 characters; got 1000"),
    );
    expect(await refusalOf(() => send({ template: { id: "welcome", variables: { first_name: "n".repeat(5000), plan: "p" } } }))).toEqual(
      refused("subject", "too_long", "is longer than 1996 characters after template substitution"),
    );
  });

  test("a small request cannot expand a template past the html bound", async () => {
    templates.set("bomb", { subject: "s", html: "{{v}}".repeat(1000), text: null });
    const value = "x".repeat(2000);
    expect(await refusalOf(() => send({ template: { id: "bomb", variables: { v: value } } }))).toEqual(
      refused("html", "too_large", `is longer than ${htmlBytesMax} characters after template substitution`, 413),
    );
    // Escaping counts: 1,000 × 1,048 characters fits as is; escaped, each "<" takes 5.
    const fits = "x".repeat(1048);
    expect((await send({ template: { id: "bomb", variables: { v: fits } } })).html).toHaveLength(1_048_000);
    expect(await refusalOf(() => send({ template: { id: "bomb", variables: { v: "<".repeat(1048) } } }))).toEqual(
      refused("html", "too_large", `is longer than ${htmlBytesMax} characters after template substitution`, 413),
    );
  });

  test("template refusals", async () => {
    expect(await refusalOf(() => send({ template: { id: "nope" } }))).toEqual(refused("template.id", "template_not_found", "no template with this id"));
    expect(await refusalOf(() => send({ template: { id: "empty" } }))).toEqual(
      refused("template.id", "invalid_value", "the template has neither html nor text"),
    );
    expect(await refusalOf(() => send({ template: "welcome" }))).toEqual(refused("template", "invalid_type", "must be an object {id, variables}"));
    expect(await refusalOf(() => send({ template: {} }))).toEqual(refused("template.id", "missing_field", "is required"));
    expect(await refusalOf(() => send({ template: { id: 7 } }))).toEqual(refused("template.id", "invalid_type", "must be a string"));
    expect(await refusalOf(() => send({ template: { id: "a b" } }))).toEqual(
      refused("template.id", "invalid_value", "must be printable ASCII without spaces"),
    );
    expect(await refusalOf(() => send({ template: { id: "t".repeat(129) } }))).toEqual(
      refused("template.id", "too_long", "must be at most 128 characters"),
    );
    expect(await refusalOf(() => send({ template: { id: "welcome", vars: {} } }))).toEqual(
      refused('template["vars"]', "unknown_field", "is not a template field"),
    );
    expect(await refusalOf(() => send({ html: "<p>x</p>", template: { id: "welcome" } }))).toEqual(
      refused("template", "invalid_value", "give either a template or html/text, not both"),
    );
    expect(await refusalOf(() => send({ template: { id: "welcome", variables: ["Tom"] } }))).toEqual(
      refused("template.variables", "invalid_type", "must be an object"),
    );
    expect(await refusalOf(() => send({ template: { id: "welcome", variables: { first_name: null } } }))).toEqual(
      refused('template.variables["first_name"]', "invalid_type", "must be a string, a number or a boolean"),
    );
    expect(await refusalOf(() => send({ template: { id: "welcome", variables: { "first-name": "x" } } }))).toEqual(
      refused('template.variables["first-name"]', "invalid_value", "a name is ASCII letters, digits and _, not starting with a digit"),
    );
  });

  test("variable limits at their edges: 100 variables, 64-character names", async () => {
    const extra = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`v${index}`, "x"]));
    const used = { first_name: "a", plan: "b" };
    expect((await send({ template: { id: "welcome", variables: { ...extra(templateVariablesMax - 2), ...used } } })).templateId).toBe("welcome");
    expect(await refusalOf(() => send({ template: { id: "welcome", variables: { ...extra(templateVariablesMax - 1), ...used } } }))).toEqual(
      refused("template.variables", "too_many", "at most 100 variables; got 101"),
    );
    const longest = "n".repeat(templateVariableNameLengthMax);
    templates.set("long-name", { subject: "s", html: null, text: `{{${longest}}}` });
    expect((await send({ template: { id: "long-name", variables: { [longest]: "ok" } } })).text).toBe("ok");
    expect(await refusalOf(() => send({ template: { id: "long-name", variables: { [`${longest}n`]: "ok" } } }))).toEqual(
      refused(`template.variables[${JSON.stringify(`${longest}…`)}]`, "too_long", "a name must be at most 64 characters"),
    );
  });
});

describe("placeholders of a template being saved", () => {
  test("the names used, in order of first use, each once", () => {
    expect(templatePlaceholders("{{ b }} {{a}} {{b}} {{not one}} {{{c}}}")).toEqual(["b", "a", "c"]);
  });

  test("a `{{` that opens no placeholder a send can fill is found; other braces are text", () => {
    const longest = "n".repeat(templateVariableNameLengthMax);
    const cases: [string, number | null][] = [
      ["Hello {{name}}", null],
      ["{ } }} {x} {{{name}}}", null],
      [`{{${longest}}}`, null],
      [`{{${longest}n}}`, 0],
      ["ab{{ unclosed", 2],
      ["{{a}}{{first name}}", 5],
      ["{{1st}}", 0],
      ["{{a}}x{{", 6],
      ["x{{{{a}}", 1],
    ];
    for (const [template, index] of cases) expect([template, strayPlaceholderIndex(template)]).toEqual([template, index]);
  });
});
