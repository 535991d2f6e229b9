import { describe, expect, test } from "bun:test";
import { parseEnhancedStatusCode, parseSmtpReply, replyClass } from "../../../server/mail/delivery/smtp-reply.ts";

describe("parseEnhancedStatusCode", () => {
  test("finds the code at the start of the text, normalised", () => {
    expect(
      ["5.1.1 User unknown", "4.7.0 try later", "2.0.0", "5.01.001 padded", " 5.2.2 leading space"].map((text) => parseEnhancedStatusCode(text)),
    ).toEqual(["5.1.1", "4.7.0", "2.0.0", "5.1.1", "5.2.2"]);
  });

  test("refuses what is not one", () => {
    expect(
      ["User unknown 5.1.1", "3.1.1 no class 3", "5.1 too short", "5.1.1.1 too long", "5.1.1x glued", "5.1234.1 too many digits", ""].map((text) =>
        parseEnhancedStatusCode(text),
      ),
    ).toEqual([null, null, null, null, null, null, null]);
  });

  test("a class that disagrees with the reply code is ignored", () => {
    expect([parseEnhancedStatusCode("2.0.0 ok", 550), parseEnhancedStatusCode("5.1.1 no", 550)]).toEqual([null, "5.1.1"]);
  });
});

describe("parseSmtpReply", () => {
  test("one line", () => {
    expect(parseSmtpReply("550 5.1.1 <bob@example.test>: User unknown")).toEqual({
      code: 550,
      enhancedCode: "5.1.1",
      text: "<bob@example.test>: User unknown",
    });
  });

  test("several lines keep their text, without the repeated codes", () => {
    expect(parseSmtpReply("452-4.2.2 Mailbox full\r\n452 4.2.2 try again later")).toEqual({
      code: 452,
      enhancedCode: "4.2.2",
      text: "Mailbox full\ntry again later",
    });
  });

  test("no enhanced code", () => {
    expect(parseSmtpReply("421 mx.example.test closing")).toEqual({ code: 421, enhancedCode: null, text: "mx.example.test closing" });
    expect(parseSmtpReply("250")).toEqual({ code: 250, enhancedCode: null, text: "" });
  });

  test("garbage has no code", () => {
    expect(parseSmtpReply("HTTP/1.1 400 Bad Request")).toEqual({ code: null, enhancedCode: null, text: "HTTP/1.1 400 Bad Request" });
    expect(parseSmtpReply("55")).toEqual({ code: null, enhancedCode: null, text: "55" });
  });
});

describe("replyClass", () => {
  test("by first digit", () => {
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
});
