import { describe, expect, test } from "bun:test";
import { simpleParser } from "mailparser";
import { buildMessage } from "../../../server/mail/compose/mime.ts";
import type { StoredTemplate } from "../../../server/mail/compose/template.ts";
import { validateSendRequest } from "../../../server/mail/compose/validate.ts";
import { refusalOf } from "./refusal.ts";

// Header injection: a line break in any value that lands in a header would let the sender
// (or whoever feeds the sender's form) add headers of their own, such as a Bcc. Every such
// field refuses CR, LF, CRLF, NUL and the Unicode line breaks (NEL, LINE SEPARATOR,
// PARAGRAPH SEPARATOR), naming the field. Percent-encoded breaks are plain text.

const now = new Date("2026-11-27T12:00:00.000Z");
const templates = new Map<string, StoredTemplate>([["greet", { subject: "Hello {{name}}", html: "<p>Hi {{name}}</p>", text: null }]]);
const context = { now, findTemplate: (id: string) => templates.get(id) ?? null };
const minimal = { from: "Acme <billing@acme.com>", to: "jane@example.com", subject: "Invoice", html: "<p>Hi</p>" };

const hostile: Array<[string, string]> = [
  ["\r", "CR (U+000D)"],
  ["\n", "LF (U+000A)"],
  ["\r\n", "CR (U+000D)"],
  ["\0", "NUL (U+0000)"],
  ["\u0085", "NEL (U+0085)"],
  ["\u2028", "LINE SEPARATOR (U+2028)"],
  ["\u2029", "PARAGRAPH SEPARATOR (U+2029)"],
  ["\u000b", "control character U+000B"],
  ["\u001b", "control character U+001B"],
  ["\u007f", "DEL (U+007F)"],
];

// Each header-bound field: how to put `s` (a hostile string) in a request, and the field the
// refusal must name.
const fields: Array<[string, (s: string) => Record<string, unknown>, (s: string) => string]> = [
  ["from display name", (s) => ({ from: `Acme${s}Bcc: x@evil.com <billing@acme.com>` }), () => "from"],
  ["from address", (s) => ({ from: `billing${s}@acme.com` }), () => "from"],
  ["from address domain", (s) => ({ from: `billing@acme.com${s}Bcc: x@evil.com` }), () => "from"],
  ["to as a string", (s) => ({ to: `jane@example.com${s}Bcc: x@evil.com` }), () => "to"],
  ["to in an array", (s) => ({ to: ["ok@example.com", `Jane${s} <jane@example.com>`] }), () => "to[1]"],
  ["cc", (s) => ({ cc: [`c${s}c@example.com`] }), () => "cc[0]"],
  ["bcc", (s) => ({ bcc: `b@example.com${s}` }), () => "bcc"],
  ["reply_to", (s) => ({ reply_to: [`"Support${s}" <help@acme.com>`] }), () => "reply_to[0]"],
  ["subject", (s) => ({ subject: `Invoice${s}Bcc: x@evil.com` }), () => "subject"],
  ["custom header name", (s) => ({ headers: { [`X-A${s}Bcc`]: "v" } }), (s) => `headers[${JSON.stringify(`X-A${s}Bcc`)}]`],
  ["custom header value", (s) => ({ headers: { "X-Campaign": `nov${s}Bcc: x@evil.com` } }), () => 'headers["X-Campaign"]'],
  ["attachment filename", (s) => ({ attachments: [{ filename: `a${s}.pdf`, content: "" }] }), () => "attachments[0].filename"],
  ["attachment content_type", (s) => ({ attachments: [{ filename: "a", content: "", content_type: `text/plain${s}X: y` }] }), () => "attachments[0].content_type"],
  ["attachment content_id", (s) => ({ attachments: [{ filename: "a", content: "", content_id: `logo${s}` }] }), () => "attachments[0].content_id"],
  ["tag name", (s) => ({ tags: [{ name: `t${s}`, value: "v" }] }), () => "tags[0].name"],
  ["tag value", (s) => ({ tags: [{ name: "t", value: `${s}v` }] }), () => "tags[0].value"],
  [
    "template variable in the subject",
    (s) => ({ subject: undefined, html: undefined, template: { id: "greet", variables: { name: `Tom${s}Bcc: x@evil.com` } } }),
    () => 'template.variables["name"]',
  ],
];


describe("header injection is refused in every header-bound field", () => {
  for (const [label, put, fieldOf] of fields) {
    test(label, async () => {
      for (const [characters, described] of hostile) {
        const field = fieldOf(characters);
        expect(await refusalOf(() => validateSendRequest({ ...minimal, ...put(characters) }, context))).toEqual({
          status: 422,
          code: "forbidden_character",
          field,
          message: `${field}: must not contain ${described}`,
        });
      }
    });
  }

  test("a tab is refused where it is not header text (addresses, names of things)", async () => {
    expect(await refusalOf(() => validateSendRequest({ ...minimal, from: "Acme\t<billing@acme.com>" }, context))).toEqual({
      status: 422,
      code: "forbidden_character",
      field: "from",
      message: "from: must not contain TAB (U+0009)",
    });
  });
});

describe("percent-encoded line breaks stay literal and harmless", () => {
  test("in the subject, a custom header, a display name and a filename they arrive as typed", async () => {
    const encoded = "%0d%0aBcc: x@evil.com%0D%0A";
    const email = await validateSendRequest(
      {
        ...minimal,
        from: `Acme${encoded.replace(/[ :@]/g, "")} <billing@acme.com>`,
        subject: `Invoice${encoded}`,
        headers: { "X-Campaign": `nov${encoded}` },
        attachments: [{ filename: `a${encoded}.pdf`, content: "YQ==" }],
      },
      context,
    );
    const { raw } = await buildMessage(email, { emailId: "em_1", messageIdDomain: "acme.com", returnPath: "bounces@acme.com", date: now });
    const parsed = await simpleParser(raw);
    expect({
      from: parsed.from?.value,
      subject: parsed.subject,
      campaign: parsed.headers.get("x-campaign"),
      filename: parsed.attachments[0]?.filename,
      bcc: parsed.bcc,
      bccLines: parsed.headerLines.filter((line) => line.key === "bcc"),
    }).toEqual({
      from: [{ name: "Acme%0d%0aBccxevil.com%0D%0A", address: "billing@acme.com" }],
      subject: `Invoice${encoded}`,
      campaign: `nov${encoded}`,
      filename: `a${encoded}.pdf`,
      bcc: undefined,
      bccLines: [],
    });
  });
});
