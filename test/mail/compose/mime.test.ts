import { describe, expect, test } from "bun:test";
import { simpleParser, type AddressObject, type ParsedMail } from "mailparser";
import { ComposeError } from "../../../server/mail/compose/errors.ts";
import { buildMessage, textFromHtml } from "../../../server/mail/compose/mime.ts";
import { validateSendRequest } from "../../../server/mail/compose/validate.ts";

const now = new Date("2026-11-27T12:00:00.000Z");
const context = { now, findTemplate: () => null };
const options = { emailId: "em_01JDXK4Z", messageIdDomain: "mail.acme.com", returnPath: "bounces+em_01JDXK4Z@rp.acme.com", date: now };
const allBytes = Buffer.from(Array.from({ length: 1024 }, (_, index) => (index * 37 + 11) % 256));
const png = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.from([0, 13, 10, 13, 0, 255])]);
const crlfText = Buffer.from("line one\r\nline two\n\rtrailing space \r\n.\r\n..\r\nFrom here\r\n", "latin1");

const addresses = (object: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(object) ? object : object ? [object] : []).flatMap((entry) => entry.value.map(({ name, address }) => ({ name, address })));
const headerSection = (raw: Buffer): string => raw.toString("latin1").split("\r\n\r\n")[0]!;

function received(parsed: ParsedMail) {
  return {
    from: addresses(parsed.from),
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    bcc: addresses(parsed.bcc),
    replyTo: addresses(parsed.replyTo),
    subject: parsed.subject,
    messageId: parsed.messageId,
    date: parsed.date,
    html: parsed.html,
    text: parsed.text,
    attachments: parsed.attachments.map((attachment) => ({
      filename: attachment.filename,
      contentType: attachment.contentType,
      contentDisposition: attachment.contentDisposition,
      cid: attachment.cid ?? null,
      content: attachment.content,
    })),
  };
}

describe("buildMessage: what is sent is what was asked", () => {
  test("every field survives a round trip through mailparser, attachments byte-identical", async () => {
    const subject = `Ihre Rechnung Nr. 42 — ${"ünïcödé ".repeat(20)}😀`;
    const html = `<p>Hallo Zoë, <b>Rechnung</b> anbei.</p><img src="cid:logo@acme.com" alt="Acme">`;
    const email = await validateSendRequest(
      {
        from: "Acme Größe GmbH <billing@acme.com>",
        to: ["jane@example.com", '"Doe, John \\"JD\\"" <john@Bücher.example>'],
        cc: "Finance <finance@example.org>",
        bcc: ["hidden@audit.example", "Secret Name <secret@audit.example>"],
        reply_to: ["support@acme.com", "Sales <sales@acme.com>"],
        subject,
        html,
        text: "Hallo Zoë,\nRechnung anbei.",
        headers: {
          "X-Campaign": "november",
          "List-Unsubscribe": "<https://acme.com/unsubscribe?u=1>",
          "X-Note": "Grüße aus Köln",
          "X-Long": "word ".repeat(150).trim(),
        },
        attachments: [
          { filename: "logo.png", content: png.toString("base64"), content_id: "logo@acme.com" },
          { filename: "binary.bin", content: allBytes.toString("base64") },
          { filename: "Straße – Übersicht.txt", content: crlfText.toString("base64"), content_type: "text/plain" },
          { filename: "empty.dat", content: "" },
        ],
        tags: [{ name: "category", value: "invoice" }],
      },
      context,
    );
    const message = await buildMessage(email, options);
    const parsed = await simpleParser(message.raw, { skipImageLinks: true });
    expect(received(parsed)).toEqual({
      from: [{ name: "Acme Größe GmbH", address: "billing@acme.com" }],
      to: [
        { name: "", address: "jane@example.com" },
        // mailparser shows IDN domains decoded; the header itself carries punycode (below).
        { name: 'Doe, John "JD"', address: "john@bücher.example" },
      ],
      cc: [{ name: "Finance", address: "finance@example.org" }],
      bcc: [],
      replyTo: [
        { name: "", address: "support@acme.com" },
        { name: "Sales", address: "sales@acme.com" },
      ],
      subject,
      messageId: "<em_01JDXK4Z@mail.acme.com>",
      date: now,
      html,
      text: "Hallo Zoë,\nRechnung anbei.",
      attachments: [
        { filename: "logo.png", contentType: "image/png", contentDisposition: "inline", cid: "logo@acme.com", content: png },
        { filename: "binary.bin", contentType: "application/octet-stream", contentDisposition: "attachment", cid: null, content: allBytes },
        { filename: "Straße – Übersicht.txt", contentType: "text/plain", contentDisposition: "attachment", cid: null, content: crlfText },
        { filename: "empty.dat", contentType: "application/octet-stream", contentDisposition: "attachment", cid: null, content: Buffer.alloc(0) },
      ],
    });
    expect({
      campaign: parsed.headers.get("x-campaign"),
      unsubscribe: parsed.headerLines.find((line) => line.key === "list-unsubscribe")?.line,
      // Non-ASCII header text goes out as RFC 2047 encoded words; mailparser decodes them only
      // in the headers it knows, so the raw value is compared here.
      note: parsed.headers.get("x-note"),
      long: parsed.headers.get("x-long"),
      tagsInHeaders: /category|invoice/i.test(headerSection(message.raw)),
      punycodeTo: headerSection(message.raw).includes("<john@xn--bcher-kva.example>"),
    }).toEqual({
      campaign: "november",
      unsubscribe: "List-Unsubscribe: <https://acme.com/unsubscribe?u=1>",
      note: "=?UTF-8?Q?Gr=C3=BC=C3=9Fe_aus_K=C3=B6ln?=",
      long: "word ".repeat(150).trim(),
      tagsInHeaders: false,
      punycodeTo: true,
    });
    expect({ messageId: message.messageId, envelope: message.envelope }).toEqual({
      messageId: "<em_01JDXK4Z@mail.acme.com>",
      envelope: {
        from: "bounces+em_01JDXK4Z@rp.acme.com",
        to: ["jane@example.com", "john@xn--bcher-kva.example", "finance@example.org", "hidden@audit.example", "secret@audit.example"],
      },
    });
  });

  test("bcc recipients are in the envelope and nowhere in the message", async () => {
    const email = await validateSendRequest(
      { from: "billing@acme.com", to: "jane@example.com", bcc: ["Secret Name <secret@audit.example>"], subject: "s", text: "t" },
      context,
    );
    const message = await buildMessage(email, options);
    const raw = message.raw.toString("latin1");
    expect({
      bccHeader: /^bcc:/im.test(headerSection(message.raw)),
      address: raw.includes("secret@audit.example"),
      name: raw.includes("Secret"),
      envelope: message.envelope,
    }).toEqual({ bccHeader: false, address: false, name: false, envelope: { from: options.returnPath, to: ["jane@example.com", "secret@audit.example"] } });
  });

  test("the message has CRLF line ends only and no line over 998 characters, even with the longest unbroken values", async () => {
    const email = await validateSendRequest(
      {
        from: "billing@acme.com",
        to: "jane@example.com",
        subject: "s".repeat(998),
        text: `${"x".repeat(5000)}\nshort\n`,
        html: `<p>${"y".repeat(5000)}</p>`,
        headers: { [`X-${"n".repeat(74)}`]: "v".repeat(920) },
        attachments: [{ filename: `${"f".repeat(251)}.txt`, content: "YQ==" }],
      },
      context,
    );
    const raw = (await buildMessage(email, options)).raw.toString("latin1");
    expect({ bareLf: /(?<!\r)\n/.test(raw), bareCr: /\r(?!\n)/.test(raw), longest: Math.max(...raw.split("\r\n").map((line) => line.length)) <= 998 }).toEqual({
      bareLf: false,
      bareCr: false,
      longest: true,
    });
    const parsed = await simpleParser(raw);
    expect([parsed.subject, parsed.text, parsed.html, parsed.headers.get(`x-${"n".repeat(74)}`), parsed.attachments[0]?.filename]).toEqual([
      "s".repeat(998),
      `${"x".repeat(5000)}\nshort\n`,
      `<p>${"y".repeat(5000)}</p>`,
      "v".repeat(920),
      `${"f".repeat(251)}.txt`,
    ]);
  });

  test("html alone gets a text part made from it", async () => {
    const html =
      '<html><head><style>p{color:red}</style></head><body><h1>Invoice</h1><p>Total: <b>10 €</b> <img src="cid:logo" alt="Logo"></p>' +
      '<a href="https://acme.com/pay">Pay now</a><script>alert(1)</script></body></html>';
    const expectedText = "INVOICE\n\nTotal: 10 €\n\nPay now [https://acme.com/pay]";
    expect(textFromHtml(html)).toBe(expectedText);
    const email = await validateSendRequest({ from: "billing@acme.com", to: "jane@example.com", subject: "s", html }, context);
    const parsed = await simpleParser((await buildMessage(email, options)).raw);
    expect({ html: parsed.html, text: parsed.text }).toEqual({ html, text: expectedText });
  });

  test("text alone is sent as text, with no html part", async () => {
    const email = await validateSendRequest({ from: "billing@acme.com", to: "jane@example.com", subject: "s", text: "Just text." }, context);
    const message = await buildMessage(email, options);
    const parsed = await simpleParser(message.raw);
    // A single-part body ends with a line break, which mailparser keeps.
    expect({ html: parsed.html, text: parsed.text, contentType: parsed.headerLines.find((line) => line.key === "content-type")?.line }).toEqual({
      html: false,
      text: "Just text.\n",
      contentType: "Content-Type: text/plain; charset=utf-8",
    });
  });

  test("hostile html is the sender's content and arrives as sent", async () => {
    // We do not sanitise a sender's own email: receiving clients sandbox html, and rewriting
    // it would break legitimate mail. What we guard is the message structure (headers).
    const html = `<script>alert(document.cookie)</script><img src=x onerror="fetch('//evil')"><p>--boundary\nContent-Type: text/plain</p>`;
    const email = await validateSendRequest({ from: "billing@acme.com", to: "jane@example.com", subject: "s", html, text: "t" }, context);
    const parsed = await simpleParser((await buildMessage(email, options)).raw);
    expect({ html: parsed.html, text: parsed.text, attachments: parsed.attachments }).toEqual({ html, text: "t", attachments: [] });
  });

  test("the Message-ID parts and the return path are checked", async () => {
    const email = await validateSendRequest({ from: "billing@acme.com", to: "jane@example.com", subject: "s", text: "t" }, context);
    await expect(buildMessage(email, { ...options, emailId: "em 1>\r\nBcc: x@evil.com" })).rejects.toThrow(
      "the email id must be dot-atom text to be a Message-ID",
    );
    const failure = async (run: () => Promise<unknown>) => {
      try {
        await run();
      } catch (error) {
        if (error instanceof ComposeError) return { field: error.field, code: error.code };
        throw error;
      }
      throw new Error("expected a ComposeError");
    };
    expect(await failure(() => buildMessage(email, { ...options, messageIdDomain: "acme.com>\r\nBcc: x" }))).toEqual({
      field: "messageIdDomain",
      code: "invalid_address",
    });
    expect(await failure(() => buildMessage(email, { ...options, returnPath: "bounces@acme.com\r\n" }))).toEqual({
      field: "returnPath",
      code: "forbidden_character",
    });
  });
});
