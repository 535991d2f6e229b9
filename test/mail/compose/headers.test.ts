import { describe, expect, test } from "bun:test";
import {
  customHeaderNameLengthMax,
  customHeadersMax,
  customHeaderValueLengthMax,
  parseCustomHeaders,
} from "../../../server/mail/compose/headers.ts";
import { refusal, refused } from "./refusal.ts";

const reservedMessage = "this header is set by the mail service and cannot be given";

describe("custom headers", () => {
  test("names and values are kept as given, in order", () => {
    expect(
      parseCustomHeaders({
        "X-Entity-Ref-ID": "inv-42",
        "List-Unsubscribe": "<mailto:u@acme.com>, <https://acme.com/u?id=1&x=%0d%0a>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        "In-Reply-To": "<prev@acme.com>",
        "x-lower!#$%&'*+^_`|~": "Grüße\tund mehr",
      }),
    ).toEqual([
      { name: "X-Entity-Ref-ID", value: "inv-42" },
      { name: "List-Unsubscribe", value: "<mailto:u@acme.com>, <https://acme.com/u?id=1&x=%0d%0a>" },
      { name: "List-Unsubscribe-Post", value: "List-Unsubscribe=One-Click" },
      { name: "In-Reply-To", value: "<prev@acme.com>" },
      { name: "x-lower!#$%&'*+^_`|~", value: "Grüße\tund mehr" },
    ]);
    expect(parseCustomHeaders(undefined)).toEqual([]);
  });

  test("the headers we own are refused, whatever their case", () => {
    for (const name of [
      "From", "to", "CC", "Bcc", "Sender", "Reply-To", "subject", "Date", "Message-ID", "message-id",
      "DKIM-Signature", "Return-Path", "MIME-Version", "Content-Type", "content-transfer-encoding",
      "Content-Disposition", "Content-ID", "Received", "Authentication-Results", "ARC-Seal", "arc-message-signature",
    ]) {
      expect(refusal(() => parseCustomHeaders({ [name]: "x" }))).toEqual(refused(`headers[${JSON.stringify(name)}]`, "reserved_header", reservedMessage));
    }
  });

  test("a name is printable ASCII without colon or space", () => {
    for (const name of ["X Space", "X:Colon", "X-Ünicode", "", "X-\u00a0"]) {
      expect(refusal(() => parseCustomHeaders({ [name]: "x" }))).toEqual(
        refused(`headers[${JSON.stringify(name)}]`, "invalid_value", "a header name is printable ASCII without spaces or colons"),
      );
    }
  });

  test("the same name twice, in another case, is refused", () => {
    expect(refusal(() => parseCustomHeaders({ "X-Campaign": "a", "x-campaign": "b" }))).toEqual(
      refused('headers["x-campaign"]', "duplicate", "the same header is given twice (names are case-insensitive)"),
    );
  });

  test("values are non-empty strings", () => {
    expect(refusal(() => parseCustomHeaders({ "X-N": 5 }))).toEqual(refused('headers["X-N"]', "invalid_type", "must be a string"));
    expect(refusal(() => parseCustomHeaders({ "X-N": ["a", "b"] }))).toEqual(refused('headers["X-N"]', "invalid_type", "must be a string"));
    for (const value of ["", "  ", "\t"]) {
      expect(refusal(() => parseCustomHeaders({ "X-N": value }))).toEqual(refused('headers["X-N"]', "invalid_value", "must not be empty"));
    }
  });

  test("headers must be an object", () => {
    for (const input of ["X-A: b", [["X-A", "b"]], 5]) {
      expect(refusal(() => parseCustomHeaders(input))).toEqual(refused("headers", "invalid_type", "must be an object of names to values"));
    }
  });

  test("limits at their edges: 50 headers, 76-character names, 920-character values", () => {
    const fifty = Object.fromEntries(Array.from({ length: customHeadersMax }, (_, index) => [`X-H${index}`, "v"]));
    expect(parseCustomHeaders(fifty)).toHaveLength(50);
    expect(refusal(() => parseCustomHeaders({ ...fifty, "X-One-More": "v" }))).toEqual(refused("headers", "too_many", "at most 50 headers; got 51"));

    const longestName = `X-${"n".repeat(customHeaderNameLengthMax - 2)}`;
    expect(parseCustomHeaders({ [longestName]: "v" })).toEqual([{ name: longestName, value: "v" }]);
    const tooLongName = `${longestName}n`;
    expect(refusal(() => parseCustomHeaders({ [tooLongName]: "v" }))).toEqual(
      refused(`headers[${JSON.stringify(`${tooLongName.slice(0, 64)}…`)}]`, "too_long", "a header name must be at most 76 characters"),
    );

    const longestValue = "v".repeat(customHeaderValueLengthMax);
    expect(parseCustomHeaders({ "X-V": longestValue })).toEqual([{ name: "X-V", value: longestValue }]);
    expect(refusal(() => parseCustomHeaders({ "X-V": `${longestValue}v` }))).toEqual(
      refused('headers["X-V"]', "too_long", "must be at most 920 characters"),
    );
  });
});
