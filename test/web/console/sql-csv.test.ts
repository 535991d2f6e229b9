// The SQL page's pure parts: CSV as RFC 4180 writes it with formula-like text neutralised, the
// line a DuckDB error names, and the tables' columns named as the region's events view names them.
import { describe, expect, test } from "bun:test";
import { fixedColumnNames } from "../../../storage/event-columns.ts";
import { csvField, toCsv } from "../../../web/console/pages/sql/csv.ts";
import { errorLine } from "../../../web/console/pages/sql/sql-error.ts";
import { fixedEventColumns, propertyColumns, sqlIdentifier, sqlTables } from "../../../web/console/pages/sql/sql-tables.ts";

const property = (key: string, type: "number" | "text" | "bool" = "text") => ({ key, type, volume: 1, first_seen: "", last_seen: "" });

describe("CSV", () => {
  test("fields are quoted only when they hold a comma, a double quote, CR or LF, with quotes doubled", () => {
    expect(["plain", "a,b", 'say "hi"', "two\nlines", "cr\rhere", ""].map(csvField)).toEqual(["plain", '"a,b"', '"say ""hi"""', '"two\nlines"', '"cr\rhere"', ""]);
  });

  test("text starting with = + - @, tab or CR gets a leading apostrophe; numbers and booleans stay as they are", () => {
    expect(["=1+2", "+1", "-1", "@SUM(A1)", "\tx", "a=1", "x-1"].map(csvField)).toEqual(["'=1+2", "'+1", "'-1", "'@SUM(A1)", "'\tx", "a=1", "x-1"]);
    expect([-2, 1.5, true, false, null].map(csvField)).toEqual(["-2", "1.5", "true", "false", ""]);
    expect(csvField('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
  });

  test("lists and structs are their JSON; a file is a byte order mark, the header and CRLF-ended records", () => {
    expect(csvField([1, "a"])).toBe('"[1,""a""]"');
    expect(csvField({ key: "k", value: 1 })).toBe('"{""key"":""k"",""value"":1}"');
    expect(toCsv(["=name", "n"], [["a", 1], [null, -1]])).toBe("\uFEFF'=name,n\r\na,1\r\n,-1\r\n");
  });
});

describe("errors", () => {
  test("the line of a parser or binder message, or none", () => {
    expect(errorLine('Parser Error: syntax error at or near "FORM"\n\nLINE 1: SELECT 1 FORM events\n                 ^')).toBe(1);
    expect(errorLine('Binder Error: Referenced column "nope" not found in FROM clause!\n\nLINE 12:   nope\n          ^')).toBe(12);
    expect(errorLine("the query ran past the 30 s limit; filter or aggregate more")).toBeNull();
  });
});

describe("tables", () => {
  test("the fixed columns are the event files' own, in their order", () => {
    expect(fixedEventColumns.map(({ name }) => name)).toEqual(fixedColumnNames);
  });

  test("property columns are named as the view names them: keys differing only in letter case are numbered; a key with NUL has none", () => {
    expect(propertyColumns([property("plan"), property("Plan", "number"), property("plan_2"), property("nul\u0000key"), property("ok", "bool")])).toEqual([
      { name: "p_Plan", type: "DOUBLE" },
      { name: "p_ok", type: "VARCHAR" },
      { name: "p_plan_2", type: "VARCHAR" },
      { name: "p_plan_3", type: "VARCHAR" },
    ]);
    expect(sqlTables([]).map(({ name, columns }) => [name, columns.at(-1)!.name])).toEqual([["events", "person_id"], ["stored_events", "properties"], ["person_overrides", "person_id"]]);
  });

  test("names are quoted for SQL only when they need it", () => {
    expect(["p_plan", "$group_0", "p_say \"hi\"", "p_a b"].map(sqlIdentifier)).toEqual(["p_plan", '"$group_0"', '"p_say ""hi"""', '"p_a b"']);
  });
});
