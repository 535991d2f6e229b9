// One SMTP reply parser for the delivery (a server's answer) and the bounce reader (a DSN's
// Diagnostic-Code): the reply code, the enhanced status code (normalised, and only when its class
// agrees with the reply code) and the text as one line.
import { describe, expect, test } from "bun:test";
import { parseSmtpReply, replyClass } from "../../server/mail/smtp-reply.ts";

describe("parseSmtpReply", () => {
  test("one line", () => {
    expect(parseSmtpReply("550 5.1.1 <bob@example.test>: User unknown")).toEqual({ code: 550, enhancedCode: "5.1.1", text: "<bob@example.test>: User unknown" });
  });

  test("several lines read as one sentence, without the repeated codes", () => {
    expect(parseSmtpReply("452-4.2.2 Mailbox full\r\n452 4.2.2 try again later")).toEqual({ code: 452, enhancedCode: "4.2.2", text: "Mailbox full try again later" });
  });

  test("padded enhanced codes are normalised; one whose class disagrees with the reply code is not a code", () => {
    expect(parseSmtpReply("550 5.01.001 padded")).toEqual({ code: 550, enhancedCode: "5.1.1", text: "padded" });
    expect(parseSmtpReply("550 2.0.0 ok")).toEqual({ code: 550, enhancedCode: null, text: "2.0.0 ok" });
    for (const text of ["User unknown 5.1.1", "3.1.1 no class 3", "5.1 too short", "5.1.1.1 too long", "5.1.1x glued", "5.1234.1 too many digits"]) {
      expect(parseSmtpReply(`550 ${text}`).enhancedCode).toBeNull();
    }
  });

  test("no enhanced code, no text, or no code at all", () => {
    expect(parseSmtpReply("421 mx.example.test closing")).toEqual({ code: 421, enhancedCode: null, text: "mx.example.test closing" });
    expect(parseSmtpReply("250")).toEqual({ code: 250, enhancedCode: null, text: "" });
    expect(parseSmtpReply("HTTP/1.1 400 Bad Request")).toEqual({ code: null, enhancedCode: null, text: "HTTP/1.1 400 Bad Request" });
    expect(parseSmtpReply("55")).toEqual({ code: null, enhancedCode: null, text: "55" });
  });
});

test("replyClass goes by the code's first digit", () => {
  expect([250, 354, 421, 451, 550, 552, 600, null].map((code) => replyClass({ code, enhancedCode: null, text: "" }))).toEqual([
    "positive",
    "positive",
    "temporary",
    "temporary",
    "permanent",
    "permanent",
    null,
    null,
  ]);
});
