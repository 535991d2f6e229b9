// Stored templates: created, listed, read, changed and deleted by a tenant's full-access key,
// checked on save by the send's own rules (subject, sizes, placeholders a request can fill), and
// found by the send path under the tenant's alias. Another tenant's template is 404; a sending key
// gets 403; hostile content is stored and returned byte for byte.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { htmlBytesMax, subjectLengthMax, textBytesMax, validateSendRequest } from "../../server/mail/compose/validate.ts";
import { templateIdLengthMax, templateVariableNameLengthMax, templateVariablesMax } from "../../server/mail/compose/template.ts";
import { templateNameLengthMax, templatesPerTenantMax } from "../../server/mail/templates-service.ts";
import { startTestMail, type TestMail } from "./harness.ts";

let mail: TestMail;
beforeAll(async () => {
  mail = await startTestMail();
});
afterAll(async () => {
  await mail.close();
});

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const error = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });
const answer = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });
const path = (id: string) => `/v1/templates/${encodeURIComponent(id)}`;

const welcome = {
  id: "welcome-email",
  name: "Welcome",
  subject: "Welcome, {{ first_name }}!",
  html: "<h1>Hello {{first_name}}</h1><p>Your plan: {{plan}}</p>",
  text: "Hello {{first_name}}, plan {{plan}}. {{ unsubscribe_url }}",
};

test("a template is created, read, listed, changed and deleted; the send path finds it under its id", async () => {
  const tenant = await mail.tenant();
  const created = await mail.call("POST", "/v1/templates", { key: tenant.key, body: welcome });
  const stored = { ...welcome, variables: ["first_name", "plan", "unsubscribe_url"], created_at: iso, updated_at: iso };
  expect(answer(created)).toEqual({ status: 201, body: stored });
  expect(created.body.created_at).toBe(created.body.updated_at);
  expect(answer(await mail.call("GET", path("welcome-email"), { key: tenant.key }))).toEqual({ status: 200, body: created.body });
  expect(answer(await mail.call("GET", "/v1/templates", { key: tenant.key }))).toEqual({
    status: 200,
    body: { data: [{ id: "welcome-email", name: "Welcome", subject: welcome.subject, variables: stored.variables, created_at: iso, updated_at: iso }], next_cursor: null },
  });

  // What the send path needs: the three texts, and the send request resolves them.
  const find = (id: string) => mail.mail.ctx.templates.find(tenant.id, id);
  expect(await find("welcome-email")).toEqual({ subject: welcome.subject, html: welcome.html, text: welcome.text });
  expect(await find("nope")).toBeNull();
  const email = await validateSendRequest(
    { from: "hello@acme.com", to: "jane@example.com", template: { id: "welcome-email", variables: { first_name: "<Tom>", plan: "pro", unsubscribe_url: "https://u" } } },
    { now: new Date(mail.clock.now()), findTemplate: find },
  );
  expect([email.subject, email.html, email.text, email.templateId]).toEqual([
    "Welcome, <Tom>!",
    "<h1>Hello &#60;Tom&#62;</h1><p>Your plan: pro</p>",
    "Hello <Tom>, plan pro. https://u",
    "welcome-email",
  ]);

  // PATCH changes what it names; null clears the subject (a send then gives its own).
  mail.clock.advance(1000);
  const patched = await mail.call("PATCH", path("welcome-email"), { key: tenant.key, body: { subject: null, html: "<p>{{code}}</p>", name: " Welcome v2 " } });
  expect(answer(patched)).toEqual({
    status: 200,
    body: { ...stored, name: "Welcome v2", subject: null, html: "<p>{{code}}</p>", variables: ["code", "first_name", "plan", "unsubscribe_url"], created_at: created.body.created_at },
  });
  expect(Date.parse(patched.body.updated_at) - Date.parse(created.body.updated_at)).toBeGreaterThanOrEqual(1000);
  expect(await find("welcome-email")).toEqual({ subject: null, html: "<p>{{code}}</p>", text: welcome.text });
  // An empty PATCH changes nothing; the id cannot be changed.
  expect((await mail.call("PATCH", path("welcome-email"), { key: tenant.key, body: {} })).body).toEqual(patched.body);
  expect(answer(await mail.call("PATCH", path("welcome-email"), { key: tenant.key, body: { id: "other" } }))).toEqual(
    error(400, "validation", "body /id: Unexpected property"),
  );
  // A change that would leave neither html nor text is refused and changes nothing.
  expect(answer(await mail.call("PATCH", path("welcome-email"), { key: tenant.key, body: { html: null, text: "" } }))).toEqual(
    error(422, "missing_field", "html: give html, text or both"),
  );
  expect((await mail.call("PATCH", path("welcome-email"), { key: tenant.key, body: { html: null } })).body).toMatchObject({ html: null, text: welcome.text });

  // DELETE: gone for the API and the send path; its content is dropped; the id can be used again.
  expect(answer(await mail.call("DELETE", path("welcome-email"), { key: tenant.key }))).toEqual({ status: 200, body: { id: "welcome-email", deleted: true } });
  expect(answer(await mail.call("GET", path("welcome-email"), { key: tenant.key }))).toEqual(error(404, "not_found", "template not found"));
  expect(answer(await mail.call("PATCH", path("welcome-email"), { key: tenant.key, body: { name: "x" } }))).toEqual(error(404, "not_found", "template not found"));
  expect(answer(await mail.call("DELETE", path("welcome-email"), { key: tenant.key }))).toEqual(error(404, "not_found", "template not found"));
  expect(await find("welcome-email")).toBeNull();
  expect((await mail.call("GET", "/v1/templates", { key: tenant.key })).body).toEqual({ data: [], next_cursor: null });
  const kept = await mail.mail.ctx.database.sql`SELECT subject, html, text FROM mail_templates WHERE tenant_id = ${tenant.id}`;
  expect(kept.map((row: object) => ({ ...row }))).toEqual([{ subject: null, html: null, text: null }]);
  const again = await mail.call("POST", "/v1/templates", { key: tenant.key, body: { id: "welcome-email", text: "Hi" } });
  expect(answer(again)).toEqual({
    status: 201,
    body: { id: "welcome-email", name: "welcome-email", subject: null, html: null, text: "Hi", variables: [], created_at: iso, updated_at: iso },
  });
});

test("create refusals: shape (400), a taken id (409), content a send would refuse (422, 413)", async () => {
  const tenant = await mail.tenant();
  const create = async (body: unknown) => answer(await mail.call("POST", "/v1/templates", { key: tenant.key, body }));
  expect(await create({ id: "taken", text: "x" })).toMatchObject({ status: 201 });
  expect(await create({ id: "taken", html: "<p>y</p>" })).toEqual(error(409, "conflict", "taken is already one of your templates"));
  expect(await create({ text: "x" })).toEqual(error(400, "validation", "body /id: Expected required property"));
  expect(await create({ id: 7, text: "x" })).toEqual(error(400, "validation", "body /id: Expected string"));
  expect(await create({ id: "x", text: "x", variables: {} })).toEqual(error(400, "validation", "body /variables: Unexpected property"));
  expect(await create({ id: "x", text: 5 })).toEqual(error(400, "validation", "body /text: Expected union value"));
  expect(await create([])).toEqual(error(400, "validation", "body: Expected object"));
  expect(await create({ id: "x", name: "", text: "x" })).toEqual(error(400, "validation", "body /name: Expected string length greater or equal to 1"));
  expect(await create({ id: "x", name: " \t ", text: "x" })).toEqual(error(400, "validation", "name: must not be blank"));
  expect(await create({ id: "x", name: "n".repeat(templateNameLengthMax + 1), text: "x" })).toEqual(
    error(400, "validation", `body /name: Expected string length less or equal to ${templateNameLengthMax}`),
  );
  expect(await create({ id: "name-edge", name: "n".repeat(templateNameLengthMax), text: "x" })).toMatchObject({ status: 201 });

  // The id: the rules of a send request's template.id.
  expect(await create({ id: "", text: "x" })).toEqual(error(422, "invalid_value", "id: must be printable ASCII without spaces"));
  expect(await create({ id: "a b", text: "x" })).toEqual(error(422, "invalid_value", "id: must be printable ASCII without spaces"));
  expect(await create({ id: "a\r\nb", text: "x" })).toEqual(error(422, "invalid_value", "id: must be printable ASCII without spaces"));
  expect(await create({ id: "é", text: "x" })).toEqual(error(422, "invalid_value", "id: must be printable ASCII without spaces"));
  expect(await create({ id: "t".repeat(templateIdLengthMax + 1), text: "x" })).toEqual(error(422, "too_long", "id: must be at most 128 characters"));
  const longest = "t".repeat(templateIdLengthMax);
  expect(await create({ id: longest, text: "x" })).toMatchObject({ status: 201, body: { id: longest } });
  expect((await mail.call("GET", path(longest), { key: tenant.key })).body.id).toBe(longest);
  // A path id longer than any template's is refused before the store is asked.
  expect((await mail.call("GET", path(`${longest}t`), { key: tenant.key })).status).toBe(400);

  // Content: html or text; a subject a send accepts.
  expect(await create({ id: "x" })).toEqual(error(422, "missing_field", "html: give html, text or both"));
  expect(await create({ id: "x", subject: "s", html: "", text: null })).toEqual(error(422, "missing_field", "html: give html, text or both"));
  expect(await create({ id: "x", subject: "Hi\r\nBcc: victim@example.com", text: "x" })).toEqual(error(422, "forbidden_character", "subject: must not contain CR (U+000D)"));
  expect(await create({ id: "x", subject: "Hi {{name}}\n", text: "x" })).toEqual(error(422, "forbidden_character", "subject: must not contain LF (U+000A)"));
  expect(await create({ id: "x", subject: "  ", text: "x" })).toEqual(error(422, "invalid_value", "subject: must not be blank"));
  expect(await create({ id: "x", subject: "é".repeat(subjectLengthMax + 1), text: "x" })).toEqual(
    error(422, "too_long", `subject: must be at most ${subjectLengthMax} characters; got ${subjectLengthMax + 1}`),
  );
  expect(await create({ id: "subject-edge", subject: "é".repeat(subjectLengthMax), text: "x" })).toMatchObject({ status: 201 });
  expect((await mail.call("GET", "/v1/templates/x", { key: tenant.key })).status).toBe(404);
});

test("html and text are bounded as in a send, in UTF-8 bytes, at their edges", async () => {
  const tenant = await mail.tenant();
  const create = async (body: unknown) => answer(await mail.call("POST", "/v1/templates", { key: tenant.key, body }));
  // "é" is two bytes: the bound counts bytes, not characters.
  const html = `<p>${"é".repeat((htmlBytesMax - 8) / 2)}</p>.`;
  expect(Buffer.byteLength(html)).toBe(htmlBytesMax);
  expect(await create({ id: "html-edge", html })).toMatchObject({ status: 201 });
  expect((await mail.call("GET", path("html-edge"), { key: tenant.key })).body.html).toBe(html);
  expect(await create({ id: "x", html: `${html}.` })).toEqual(error(413, "too_large", `html: must be at most ${htmlBytesMax} bytes (UTF-8); got ${htmlBytesMax + 1}`));
  const text = "x".repeat(textBytesMax);
  expect(await create({ id: "text-edge", text })).toMatchObject({ status: 201 });
  expect(await create({ id: "x", text: `${text}é` })).toEqual(error(413, "too_large", `text: must be at most ${textBytesMax} bytes (UTF-8); got ${textBytesMax + 2}`));
  expect(await create({ id: "both-edge", html, text })).toMatchObject({ status: 201 });
  expect(answer(await mail.call("PATCH", path("both-edge"), { key: tenant.key, body: { text: `${text}.` } }))).toEqual(
    error(413, "too_large", `text: must be at most ${textBytesMax} bytes (UTF-8); got ${textBytesMax + 1}`),
  );
});

test("placeholders must be ones a send can fill: closed, a variable name, at most 64 characters, at most 100 of them", async () => {
  const tenant = await mail.tenant();
  const create = async (body: unknown) => answer(await mail.call("POST", "/v1/templates", { key: tenant.key, body }));
  const hint = `is not a placeholder: write {{name}}, the name of ASCII letters, digits and _, not starting with a digit, at most ${templateVariableNameLengthMax} characters`;
  const stray = (field: string, quoted: string, character: number) => error(422, "invalid_value", `${field}: ${JSON.stringify(quoted)} at character ${character} ${hint}`);
  expect(await create({ id: "x", html: "<p>Hi {{ unclosed</p>" })).toEqual(stray("html", "{{ unclosed</p>", 7));
  expect(await create({ id: "x", text: "Hi {{name}}, {{first name}}" })).toEqual(stray("text", "{{first name}}", 14));
  expect(await create({ id: "x", text: "ééé {{1st}}" })).toEqual(stray("text", "{{1st}}", 5));
  expect(await create({ id: "x", subject: "{{a-b}}", text: "x" })).toEqual(stray("subject", "{{a-b}}", 1));
  expect(await create({ id: "x", text: "{{a}} and {{" })).toEqual(stray("text", "{{", 11));
  expect(await create({ id: "x", text: `${"y".repeat(30)}{{${"z".repeat(40)}` })).toEqual(stray("text", `{{${"z".repeat(22)}`, 31));
  const longestName = "n".repeat(templateVariableNameLengthMax);
  expect(await create({ id: "x", text: `{{${longestName}n}}` })).toEqual(stray("text", `{{${"n".repeat(22)}`, 1));
  expect(await create({ id: "long-name", text: `{{ ${longestName} }}` })).toMatchObject({ status: 201, body: { variables: [longestName] } });
  // Braces that open no placeholder are fine: single ones, a closing pair, a placeholder in braces.
  expect(await create({ id: "braces", html: "<style>p { color: red }</style> }} {{{name}}} { {x} }", subject: "{ }" })).toMatchObject({
    status: 201,
    body: { variables: ["name"] },
  });

  // Variables: at most as many as a send can give, counted across subject, html and text.
  const placeholders = (from: number, count: number) => Array.from({ length: count }, (_, index) => `{{v${from + index}}}`).join(" ");
  expect(await create({ id: "most-variables", subject: `{{v0}} ${placeholders(1, 9)}`, html: placeholders(0, 60), text: placeholders(50, 50) })).toMatchObject({
    status: 201,
    body: { variables: Array.from({ length: templateVariablesMax }, (_, index) => `v${index}`) },
  });
  expect(await create({ id: "x", html: placeholders(0, 60), text: placeholders(50, 51) })).toEqual(
    error(422, "too_many", `text: the template uses more than ${templateVariablesMax} variables, the most a send can give`),
  );
  expect(answer(await mail.call("PATCH", path("most-variables"), { key: tenant.key, body: { subject: "{{another}}" } }))).toEqual(
    error(422, "too_many", `text: the template uses more than ${templateVariablesMax} variables, the most a send can give`),
  );
});

test(`a tenant has at most ${templatesPerTenantMax} templates; the list pages through them in id order`, async () => {
  const tenant = await mail.tenant();
  const created = Array.from({ length: templatesPerTenantMax }, (_, index) => `t${String(index).padStart(3, "0")}`);
  await Promise.all(created.map(async (id) => expect((await mail.call("POST", "/v1/templates", { key: tenant.key, body: { id, text: id } })).status).toBe(201)));
  const full = error(422, "too_many", `an account has at most ${templatesPerTenantMax} templates; delete one to add another`);
  expect(answer(await mail.call("POST", "/v1/templates", { key: tenant.key, body: { id: "one-more", text: "x" } }))).toEqual(full);
  // Creates racing for the last place: exactly one gets it.
  await mail.call("DELETE", path("t000"), { key: tenant.key });
  const racing = await Promise.all(["r1", "r2", "r3"].map((id) => mail.call("POST", "/v1/templates", { key: tenant.key, body: { id, text: id } })));
  expect(racing.map((response) => response.status).sort()).toEqual([201, 422, 422]);

  const listed = await mail.call("GET", "/v1/templates?limit=200", { key: tenant.key });
  expect(listed.body.data).toHaveLength(templatesPerTenantMax);
  expect(listed.body.next_cursor).toBeNull();
  const winner = ["r1", "r2", "r3"].find((_, index) => racing[index]!.status === 201)!;
  const ids = (response: { body: { data: { id: string }[] } }) => response.body.data.map((template) => template.id);
  const first = await mail.call("GET", "/v1/templates?limit=2", { key: tenant.key });
  expect([ids(first), first.body.next_cursor]).toEqual([[winner, "t001"], "t001"]);
  const second = await mail.call("GET", "/v1/templates?limit=2&cursor=t001", { key: tenant.key });
  expect([ids(second), second.body.next_cursor]).toEqual([["t002", "t003"], "t003"]);
  // The last page; a list shows no html or text.
  expect((await mail.call("GET", "/v1/templates?limit=2&cursor=t198", { key: tenant.key })).body).toEqual({
    data: [{ id: "t199", name: "t199", subject: null, variables: [], created_at: iso, updated_at: iso }],
    next_cursor: null,
  });
  expect(answer(await mail.call("GET", "/v1/templates?limit=201", { key: tenant.key }))).toEqual(error(400, "validation", "property: Expected integer to be less or equal to 200"));
  expect(answer(await mail.call("GET", "/v1/templates?limit=0", { key: tenant.key }))).toEqual(error(400, "validation", "property: Expected integer to be greater or equal to 1"));
  // A cursor is a template id: as long as the longest.
  const longCursor = "z".repeat(templateIdLengthMax);
  expect(answer(await mail.call("GET", `/v1/templates?cursor=${longCursor}`, { key: tenant.key }))).toEqual({ status: 200, body: { data: [], next_cursor: null } });
  expect((await mail.call("GET", `/v1/templates?cursor=${longCursor}z`, { key: tenant.key })).status).toBe(400);
});

test("another tenant's template is 404 and its id is free for every tenant; a sending key is 403; no key is 401 before any 400", async () => {
  const tenant = await mail.tenant();
  await mail.call("POST", "/v1/templates", { key: tenant.key, body: { id: "receipt", text: "Paid {{amount}}" } });
  const other = await mail.tenant("Other");
  for (const [method, body] of [["GET", undefined], ["PATCH", { text: "mine" }], ["DELETE", undefined]] as const) {
    expect(answer(await mail.call(method, path("receipt"), { key: other.key, body }))).toEqual(error(404, "not_found", "template not found"));
  }
  expect((await mail.call("GET", "/v1/templates", { key: other.key })).body).toEqual({ data: [], next_cursor: null });
  expect(await mail.mail.ctx.templates.find(other.id, "receipt")).toBeNull();
  expect((await mail.call("POST", "/v1/templates", { key: other.key, body: { id: "receipt", text: "Theirs" } })).status).toBe(201);
  expect(await mail.mail.ctx.templates.find(tenant.id, "receipt")).toEqual({ subject: null, html: null, text: "Paid {{amount}}" });
  expect(await mail.mail.ctx.templates.find(other.id, "receipt")).toEqual({ subject: null, html: null, text: "Theirs" });

  const sending = (await mail.call("POST", "/v1/api-keys", { key: tenant.key, body: { permission: "sending_access" } })).body.token;
  const forbidden = error(403, "forbidden", "this key has sending access only: it can send emails (POST /v1/emails) and nothing else");
  const unauthorized = error(401, "unauthorized", "missing or invalid API key (send it as Authorization: Bearer <key>)");
  const routes = [
    ["POST", "/v1/templates"],
    ["GET", "/v1/templates"],
    ["GET", path("receipt")],
    ["PATCH", path("receipt")],
    ["DELETE", path("receipt")],
  ] as const;
  for (const [method, route] of routes) {
    const body = method === "POST" || method === "PATCH" ? "{not json" : undefined;
    for (const [authorization, expected] of [[`Bearer ${sending}`, forbidden], [undefined, unauthorized], ["Bearer mk_live_unknown", unauthorized]] as const) {
      const response = await fetch(mail.url + route, { method, headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) }, body });
      expect({ status: response.status, body: await response.json() }).toEqual(expected);
    }
  }
  expect((await mail.call("GET", path("receipt"), { key: tenant.key })).body.text).toBe("Paid {{amount}}");
});

test("hostile content is stored and returned unchanged, under ids full of URL and SQL punctuation; NUL and a name's line breaks are refused", async () => {
  const tenant = await mail.tenant();
  const hostile = {
    id: `a/b?c#d%2F'";--<x>`,
    name: "<img src=x onerror=alert(1)> \u202e'; DROP TABLE mail_templates; --",
    subject: `<script>alert("{{name}}")</script> 🎉\t\u202e`,
    html: `<script>alert(1)</script>\r\n<a href="javascript:{{url}}">x</a>${"<".repeat(1000)}\u2028`,
    text: `\r\n.\r\nQUIT\r\n\u0001 {{name}} \ud83d\ude00 ' OR 1=1 --`,
  };
  const created = await mail.call("POST", "/v1/templates", { key: tenant.key, body: hostile });
  expect(answer(created)).toEqual({ status: 201, body: { ...hostile, variables: ["name", "url"], created_at: iso, updated_at: iso } });
  expect((await mail.call("GET", path(hostile.id), { key: tenant.key })).body).toEqual(created.body);
  expect(await mail.mail.ctx.templates.find(tenant.id, hostile.id)).toEqual({ subject: hostile.subject, html: hostile.html, text: hostile.text });
  expect((await mail.call("GET", "/v1/templates", { key: tenant.key })).body.data.map((template: { id: string }) => template.id)).toEqual([hostile.id]);
  expect((await mail.call("DELETE", path(hostile.id), { key: tenant.key })).body).toEqual({ id: hostile.id, deleted: true });

  const create = async (body: unknown) => answer(await mail.call("POST", "/v1/templates", { key: tenant.key, body }));
  expect(await create({ id: "x", html: "<p>\u0000</p>" })).toEqual(error(422, "forbidden_character", "html: must not contain NUL (U+0000)"));
  expect(await create({ id: "x", text: "a\u0000" })).toEqual(error(422, "forbidden_character", "text: must not contain NUL (U+0000)"));
  expect(await create({ id: "x", subject: "a\u0000", text: "x" })).toEqual(error(422, "forbidden_character", "subject: must not contain NUL (U+0000)"));
  expect(await create({ id: "x", name: "Welcome\r\nX-Injected: 1", text: "x" })).toEqual(error(422, "forbidden_character", "name: must not contain CR (U+000D)"));
  expect(await create({ id: "x", name: "Welcome\u0000", text: "x" })).toEqual(error(422, "forbidden_character", "name: must not contain NUL (U+0000)"));
});

test("changes made at the same time are each applied, none lost", async () => {
  const tenant = await mail.tenant();
  await mail.call("POST", "/v1/templates", { key: tenant.key, body: { id: "busy", text: "t0" } });
  const changes = [{ subject: "s1" }, { html: "<p>h1</p>" }, { name: "n1" }];
  const answers = await Promise.all(changes.map((body) => mail.call("PATCH", path("busy"), { key: tenant.key, body })));
  expect(answers.map((response) => response.status)).toEqual([200, 200, 200]);
  expect((await mail.call("GET", path("busy"), { key: tenant.key })).body).toMatchObject({ name: "n1", subject: "s1", html: "<p>h1</p>", text: "t0" });
});
