// A static cohort's CSV file as the browser reads it (web/console/pages/cohorts/csv-ids.ts):
// RFC 4180 fields, a header or none, and each bad file refused naming its line.
import { describe, expect, test } from "bun:test";
import { csvBytesMax, csvIdsMax, parseDistinctIdCsv, readDistinctIdFile } from "../../../../../web/console/pages/cohorts/csv-ids.ts";

const ids = (text: string) => parseDistinctIdCsv(text);

describe("good files", () => {
  test("one id per line, without a header, in file order; blank lines and repeats left out", () => {
    expect(ids("user-1\nuser-2\n\nuser-1\r\nuser-3")).toEqual({ ok: true, ids: ["user-1", "user-2", "user-3"], duplicates: 1, header: null });
  });

  test("a header names the column (distinct_id or id, any case); other columns are ignored", () => {
    expect(ids("email,Distinct_ID\nx@example.com,u1\ny@example.com,u2\n")).toEqual({ ok: true, ids: ["u1", "u2"], duplicates: 0, header: "Distinct_ID" });
    expect(ids("id\nu1\n")).toEqual({ ok: true, ids: ["u1"], duplicates: 0, header: "id" });
    expect(ids("u1,first\nu2,second")).toEqual({ ok: true, ids: ["u1", "u2"], duplicates: 0, header: null });
  });

  test("quoted fields keep commas, doubled quotes, line breaks and surrounding spaces; unquoted ones are trimmed", () => {
    expect(ids('"a,b"\n"say ""hi"""\n"two\nlines"\n"  spaced  "\n  trimmed  \n')).toEqual({ ok: true, ids: ["a,b", 'say "hi"', "two\nlines", "  spaced  ", "trimmed"], duplicates: 0, header: null });
  });

  test("a byte-order mark is not part of the first id; hostile ids are kept as written", () => {
    const hostile = "<img src=x onerror=alert(1)>";
    expect(ids(`\uFEFFdistinct_id\n${hostile}\n"=cmd|' /C calc'!A0"`)).toEqual({ ok: true, ids: [hostile, "=cmd|' /C calc'!A0"], duplicates: 0, header: "distinct_id" });
  });

  test(`${csvIdsMax.toLocaleString("en")} ids are read; one more is refused`, () => {
    const many = (count: number) => Array.from({ length: count }, (_, index) => `u${index}`).join("\n");
    const read = ids(many(csvIdsMax));
    expect(read.ok && read.ids.length).toBe(csvIdsMax);
    expect(ids(many(csvIdsMax + 1))).toEqual({ ok: false, error: "The file holds more than 10,000 distinct ids; split it into smaller files." });
  });
});

describe("bad files are refused in words, naming the line", () => {
  test.each([
    ["", "The file is empty: it has no distinct ids."],
    ["\n\n", "The file is empty: it has no distinct ids."],
    ["distinct_id\n", "The file has a header but no distinct ids."],
    ['u1\n"u2\nu3\n', "Line 2: a quoted field is never closed."],
    ['u1\nab"c\n', "Line 2: a quote inside an unquoted field; quote the whole field and double the quotes inside it."],
    ['"u1"x\n', "Line 1: text after a quoted field's closing quote."],
    ["u1\n,second\n", "Line 2: the distinct id is empty."],
    [`u1\n${"x".repeat(201)}\n`, "Line 2: a distinct id has at most 200 characters; this one has 201."],
    ["PK\u0003\u0004\u0014\u0000", "This is not a CSV text file: it holds binary data. Choose a .csv file with one distinct id per line."],
  ])("%j", (text, error) => {
    expect(ids(text)).toEqual({ ok: false, error });
  });

  test("a file that is not UTF-8, or too large, is refused before it is parsed", async () => {
    expect(await readDistinctIdFile(new File([new Uint8Array([0x6a, 0xf6, 0x72, 0x67])], "latin1.csv"))).toEqual({ ok: false, error: "The file is not UTF-8 text. Save it as CSV (UTF-8) and choose it again." });
    expect(await readDistinctIdFile(new File([new Uint8Array(csvBytesMax + 1)], "big.csv"))).toEqual({ ok: false, error: "The file is 2.0 MB; at most 2 MB can be uploaded." });
    expect(await readDistinctIdFile(new File(["distinct_id\nu1\n"], "ok.csv"))).toEqual({ ok: true, ids: ["u1"], duplicates: 0, header: "distinct_id" });
  });
});
