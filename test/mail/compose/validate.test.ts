import { describe, expect, test } from "bun:test";
import {
  envelopeRecipients,
  htmlBytesMax,
  messageBytesMax,
  subjectLengthMax,
  textBytesMax,
  validateSendRequest,
} from "../../../server/mail/compose/validate.ts";
import { refusalOf, refused } from "./refusal.ts";

const now = new Date("2026-11-27T12:00:00.000Z");
const context = { now, findTemplate: () => null };
const minimal = { from: "billing@acme.com", to: "jane@example.com", subject: "Your invoice", html: "<p>Hi</p>" };
const validate = (body: unknown) => validateSendRequest(body, context);

const mailbox = (address: string, name: string | null = null) => ({ name, address, domain: address.slice(address.indexOf("@") + 1) });

describe("validateSendRequest: the whole request", () => {
  test("every field, normalised into a ComposedEmail", async () => {
    const email = await validate({
      from: "Acme Billing <billing@Acme.com>",
      to: ["jane@example.com", '"Doe, John" <john@Bücher.example>'],
      cc: "Finance <finance@example.com>",
      bcc: ["audit@acme.com"],
      reply_to: "support@acme.com",
      subject: "Your invoice #42",
      html: "<p>Invoice <img src=\"cid:logo\"></p>",
      text: "Invoice",
      headers: { "X-Campaign": "november", "List-Unsubscribe": "<https://acme.com/u/1>" },
      attachments: [
        { filename: "invoice.pdf", content: "JVBERi0xLjQ=" },
        { filename: "logo.png", content: "iVBORw0KGgo=", content_type: "Image/PNG", content_id: "logo" },
      ],
      tags: [{ name: "category", value: "invoice" }],
      scheduled_at: "in 2 hours",
    });
    expect(email).toEqual({
      from: mailbox("billing@acme.com", "Acme Billing"),
      to: [mailbox("jane@example.com"), mailbox("john@xn--bcher-kva.example", "Doe, John")],
      cc: [mailbox("finance@example.com", "Finance")],
      bcc: [mailbox("audit@acme.com")],
      replyTo: [mailbox("support@acme.com")],
      subject: "Your invoice #42",
      html: "<p>Invoice <img src=\"cid:logo\"></p>",
      text: "Invoice",
      headers: [
        { name: "X-Campaign", value: "november" },
        { name: "List-Unsubscribe", value: "<https://acme.com/u/1>" },
      ],
      attachments: [
        { filename: "invoice.pdf", content: Buffer.from("%PDF-1.4"), contentType: "application/pdf", contentId: null },
        { filename: "logo.png", content: Buffer.from("89504e470d0a1a0a", "hex"), contentType: "image/png", contentId: "logo" },
      ],
      tags: [{ name: "category", value: "invoice" }],
      templateId: null,
      scheduledAt: "2026-11-27T14:00:00.000Z",
    });
  });

  test("the smallest request: optional fields come back empty", async () => {
    expect(await validate(minimal)).toEqual({
      from: mailbox("billing@acme.com"),
      to: [mailbox("jane@example.com")],
      cc: [],
      bcc: [],
      replyTo: [],
      subject: "Your invoice",
      html: "<p>Hi</p>",
      text: null,
      headers: [],
      attachments: [],
      tags: [],
      templateId: null,
      scheduledAt: null,
    });
    expect(await validate({ ...minimal, cc: null, bcc: undefined, headers: null, attachments: null, tags: null, scheduled_at: null })).toEqual(
      await validate(minimal),
    );
  });

  test("text alone is enough; an empty html or text counts as not given", async () => {
    const { html: _html, ...withoutHtml } = minimal;
    const base = await validate(minimal);
    expect(await validate({ ...withoutHtml, text: "Hi" })).toEqual({ ...base, html: null, text: "Hi" });
    expect(await validate({ ...minimal, text: "" })).toEqual({ ...base, html: "<p>Hi</p>", text: null });
    expect(await refusalOf(() => validate({ ...withoutHtml, html: "", text: "" }))).toEqual(
      refused("html", "missing_field", "give html, text or a template"),
    );
    expect(await refusalOf(() => validate(withoutHtml))).toEqual(refused("html", "missing_field", "give html, text or a template"));
  });

  test("hostile html is the sender's own content and passes through untouched", async () => {
    // We do not sanitise what a sender mails to its own recipients (as Resend and Postal do
    // not): mail clients sandbox html, and rewriting it would break legitimate mail.
    const html = `<script>alert(document.cookie)</script><img src=x onerror="fetch('//evil')"><a href="javascript:alert(1)">x</a>`;
    expect((await validate({ ...minimal, html })).html).toBe(html);
  });

  test("the body must be an object, with no field we do not know", async () => {
    for (const body of [null, "x", 42, [minimal]]) {
      expect(await refusalOf(() => validate(body))).toEqual(refused("body", "invalid_type", "must be a JSON object"));
    }
    expect(await refusalOf(() => validate({ ...minimal, replyTo: "a@acme.com" }))).toEqual(
      refused('"replyTo"', "unknown_field", "is not a field of a send request"),
    );
    expect(await refusalOf(() => validate({ ...minimal, "x\r\ny": 1 }))).toEqual(
      refused('"x\\r\\ny"', "unknown_field", "is not a field of a send request"),
    );
  });

  test("required fields", async () => {
    const { from: _from, ...noFrom } = minimal;
    const { to: _to, ...noTo } = minimal;
    const { subject: _subject, ...noSubject } = minimal;
    expect(await refusalOf(() => validate(noFrom))).toEqual(refused("from", "missing_field", "is required"));
    expect(await refusalOf(() => validate({ ...minimal, from: null }))).toEqual(refused("from", "missing_field", "is required"));
    expect(await refusalOf(() => validate(noTo))).toEqual(refused("to", "missing_field", "is required"));
    expect(await refusalOf(() => validate({ ...minimal, to: [] }))).toEqual(refused("to", "missing_field", "needs at least one address"));
    expect(await refusalOf(() => validate(noSubject))).toEqual(refused("subject", "missing_field", "is required"));
  });

  test("wrong types are refused with the field named", async () => {
    expect(await refusalOf(() => validate({ ...minimal, from: ["a@acme.com"] }))).toEqual(refused("from", "invalid_type", "must be a string"));
    expect(await refusalOf(() => validate({ ...minimal, to: 5 }))).toEqual(refused("to", "invalid_type", "must be a string or an array of strings"));
    expect(await refusalOf(() => validate({ ...minimal, cc: {} }))).toEqual(refused("cc", "invalid_type", "must be a string or an array of strings"));
    expect(await refusalOf(() => validate({ ...minimal, subject: 5 }))).toEqual(refused("subject", "invalid_type", "must be a string"));
    expect(await refusalOf(() => validate({ ...minimal, html: {} }))).toEqual(refused("html", "invalid_type", "must be a string"));
    expect(await refusalOf(() => validate({ ...minimal, text: ["x"] }))).toEqual(refused("text", "invalid_type", "must be a string"));
  });

  test("invalid addresses in each address field", async () => {
    expect(await refusalOf(() => validate({ ...minimal, from: "billing" }))).toEqual(refused("from", "invalid_address", "the address has no @"));
    expect(await refusalOf(() => validate({ ...minimal, to: ["jane@example.com", "x@localhost"] }))).toEqual(
      refused("to[1]", "invalid_address", "the domain needs at least two labels"),
    );
    expect(await refusalOf(() => validate({ ...minimal, cc: "a@b" }))).toEqual(refused("cc", "invalid_address", "the domain needs at least two labels"));
    expect(await refusalOf(() => validate({ ...minimal, bcc: ["ok@acme.com", "no"] }))).toEqual(refused("bcc[1]", "invalid_address", "the address has no @"));
    expect(await refusalOf(() => validate({ ...minimal, reply_to: ["x@[127.0.0.1]"] }))).toEqual(
      refused("reply_to[0]", "invalid_address", "domain literals are not supported"),
    );
  });
});

describe("recipient limits at their edges", () => {
  const addresses = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => `${prefix}${index}@example.com`);

  test("50 in to, cc, bcc or reply_to pass; 51 fail", async () => {
    expect((await validate({ ...minimal, to: addresses(50, "t") })).to).toHaveLength(50);
    expect(await refusalOf(() => validate({ ...minimal, to: addresses(51, "t") }))).toEqual(refused("to", "too_many", "at most 50 addresses; got 51"));
    expect(await refusalOf(() => validate({ ...minimal, cc: addresses(51, "c") }))).toEqual(refused("cc", "too_many", "at most 50 addresses; got 51"));
    expect(await refusalOf(() => validate({ ...minimal, bcc: addresses(51, "b") }))).toEqual(refused("bcc", "too_many", "at most 50 addresses; got 51"));
    expect((await validate({ ...minimal, reply_to: addresses(50, "r") })).replyTo).toHaveLength(50);
    expect(await refusalOf(() => validate({ ...minimal, reply_to: addresses(51, "r") }))).toEqual(
      refused("reply_to", "too_many", "at most 50 addresses; got 51"),
    );
  });

  test("50 recipients across to, cc and bcc pass; 51 fail", async () => {
    const email = await validate({ ...minimal, to: addresses(20, "t"), cc: addresses(20, "c"), bcc: addresses(10, "b") });
    expect([email.to.length, email.cc.length, email.bcc.length]).toEqual([20, 20, 10]);
    expect(await refusalOf(() => validate({ ...minimal, to: addresses(20, "t"), cc: addresses(20, "c"), bcc: addresses(11, "b") }))).toEqual(
      refused("to", "too_many", "at most 50 recipients in to, cc and bcc together; got 51"),
    );
  });

  test("the envelope holds to, cc and bcc, each address once", async () => {
    const email = await validate({
      ...minimal,
      to: ["a@example.com", "B <b@example.com>"],
      cc: ["b@EXAMPLE.com", "c@example.com"],
      bcc: ["a@example.com", "d@example.com"],
    });
    expect(envelopeRecipients(email)).toEqual([
      mailbox("a@example.com"),
      mailbox("b@example.com", "B"),
      mailbox("c@example.com"),
      mailbox("d@example.com"),
    ]);
  });
});

describe("subject", () => {
  test("998 characters pass, 999 fail; counted in code points", async () => {
    expect((await validate({ ...minimal, subject: "s".repeat(subjectLengthMax) })).subject).toHaveLength(998);
    expect(await refusalOf(() => validate({ ...minimal, subject: "s".repeat(999) }))).toEqual(
      refused("subject", "too_long", "must be at most 998 characters; got 999"),
    );
    expect((await validate({ ...minimal, subject: "📦".repeat(998) })).subject).toBe("📦".repeat(998));
    expect(await refusalOf(() => validate({ ...minimal, subject: "📦".repeat(999) }))).toEqual(
      refused("subject", "too_long", "must be at most 998 characters; got 999"),
    );
  });

  test("a tab is header text; a blank subject is refused", async () => {
    expect((await validate({ ...minimal, subject: "a\tb" })).subject).toBe("a\tb");
    for (const subject of ["", " ", "\t"]) {
      expect(await refusalOf(() => validate({ ...minimal, subject }))).toEqual(refused("subject", "invalid_value", "must not be blank"));
    }
  });
});

describe("content sizes at their edges", () => {
  test("html: 1 MiB of UTF-8 passes, one byte more fails", async () => {
    expect(htmlBytesMax).toBe(1024 * 1024);
    const html = "é".repeat(htmlBytesMax / 2);
    expect((await validate({ ...minimal, html })).html).toBe(html);
    expect(await refusalOf(() => validate({ ...minimal, html: `${html}x` }))).toEqual(
      refused("html", "too_large", "must be at most 1048576 bytes (UTF-8); got 1048577", 413),
    );
  });

  test("text: 1 MiB passes, one byte more fails", async () => {
    expect(textBytesMax).toBe(1024 * 1024);
    const text = "t".repeat(textBytesMax);
    expect((await validate({ ...minimal, text })).text).toBe(text);
    expect(await refusalOf(() => validate({ ...minimal, text: `${text}x` }))).toEqual(
      refused("text", "too_large", "must be at most 1048576 bytes (UTF-8); got 1048577", 413),
    );
  });

  test("html, text and attachments in base64: 40 MiB pass, one more byte fails", async () => {
    expect(messageBytesMax).toBe(40 * 1024 * 1024);
    const html = "<p>Hi</p>"; // 9 bytes
    const base64Length = messageBytesMax - 9 - 3; // text "abc" is 3 bytes
    const content = Buffer.alloc((base64Length / 4) * 3, 7).toString("base64");
    expect(content.length).toBe(base64Length);
    const request = { ...minimal, html, text: "abc", attachments: [{ filename: "big.bin", content }] };
    expect((await validate(request)).attachments[0]!.content.length).toBe((base64Length / 4) * 3);
    expect(await refusalOf(() => validate({ ...request, text: "abcd" }))).toEqual(
      refused("attachments", "too_large", `html, text and attachments (as base64) weigh ${messageBytesMax + 1} bytes; at most ${messageBytesMax}`, 413),
    );
  });
});
