import { describe, expect, test } from "bun:test";
import { fieldGroupsMax, fieldValueCharsMax, parseFieldGroups, splitTypedValue } from "../../../server/mail/bounces/report-fields.ts";
import { mailboxOrNull, messageIdOrNull, oneLine } from "../../../server/mail/bounces/text.ts";

describe("parseFieldGroups", () => {
  test("groups split by blank lines; folded lines joined with a line break; names case-insensitive; repeats kept", () => {
    const text = "Reporting-MTA: dns; a.example\r\n\r\nFINAL-RECIPIENT:rfc822;x@example.org\r\nDiagnostic-Code: smtp; 550-5.1.1 one\r\n\t550 5.1.1 two\r\nReported-Uri: a\r\nReported-Uri: b\r\n";
    expect(parseFieldGroups(text).map((group) => Object.fromEntries(group))).toEqual([
      { "reporting-mta": ["dns; a.example"] },
      { "final-recipient": ["rfc822;x@example.org"], "diagnostic-code": ["smtp; 550-5.1.1 one\n550 5.1.1 two"], "reported-uri": ["a", "b"] },
    ]);
  });

  test("CR-only, LF and CRLF line endings read the same; whitespace-only lines separate groups", () => {
    const lf = "A: 1\nB: 2\n \t\nC: 3\n";
    const expected: Record<string, string[]>[] = [{ a: ["1"], b: ["2"] }, { c: ["3"] }];
    for (const text of [lf, lf.replace(/\n/g, "\r"), lf.replace(/\n/g, "\r\n")]) {
      expect(parseFieldGroups(text).map((group) => Object.fromEntries(group))).toEqual(expected);
    }
  });

  test("garbage lines are skipped and do not take the continuation lines after them", () => {
    expect(parseFieldGroups("not a field\n continued garbage\nA: 1\n: no name\nB c: spaces in name\n").map((group) => Object.fromEntries(group))).toEqual([{ a: ["1"] }]);
  });

  test("bounded: values, groups", () => {
    const [group] = parseFieldGroups(`A: ${"x".repeat(10_000)}\n ${"y".repeat(10_000)}\n`);
    expect(group!.get("a")![0]!.length).toBe(fieldValueCharsMax);
    expect(parseFieldGroups(Array.from({ length: 1000 }, (_, index) => `N: ${index}`).join("\n\n"))).toHaveLength(fieldGroupsMax);
  });

  test("typed values", () => {
    expect(["rfc822; a@example.org", "dns;mx.example", "  SMTP ; 550 x", "no type here", "utf-8; ü@example.org"].map(splitTypedValue)).toEqual([
      { type: "rfc822", value: "a@example.org" },
      { type: "dns", value: "mx.example" },
      { type: "smtp", value: "550 x" },
      { type: null, value: "no type here" },
      { type: "utf-8", value: "ü@example.org" },
    ]);
  });
});

describe("untrusted text helpers", () => {
  test("oneLine never leaves a lone surrogate, a control or a line break", () => {
    expect(oneLine("a\ud800b\r\nc\u0007d\u202ee", 100)).toBe("a\ufffdb c d e");
    expect(oneLine("😀😀😀", 2)).toBe("😀…");
  });

  test("mailboxOrNull accepts plain addresses only", () => {
    expect(
      ["<A.B+tag@Example.ORG>", " x@example.org ", "müller@bücher.example", "no-at.example.org", "a@b", "a b@example.org", '"q"@example.org', "a@example.org,b@example.org", "a@example.org\r\nBcc: c@d.example", `${"a".repeat(250)}@example.org`].map(
        mailboxOrNull,
      ),
    ).toEqual(["A.B+tag@example.org", "x@example.org", "müller@bücher.example", null, null, null, null, null, null, null]);
  });

  test("messageIdOrNull brackets a bare id and refuses spaces and controls", () => {
    expect(["<a@b>", "a@b", " <a@b> ", "<a b@c>", "<a@b>\r\nX: y", "", `<${"a".repeat(1000)}@b>`].map(messageIdOrNull)).toEqual(["<a@b>", "<a@b>", "<a@b>", null, null, null, null]);
  });
});
