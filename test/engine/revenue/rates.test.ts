// The reference rate table (parsing, the latest rate on or before a day), conversion between
// minor units, the error for a day before the table, and refreshing the bundled file.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { ReferenceRates, RatesFileError, referenceRates, utcDay } from "../../../engine/revenue/rates.ts";
import { CurrencyConversion, minorScale, RevenueRateError } from "../../../engine/revenue/conversion.ts";
import { compactRates } from "../../../engine/revenue/rates-file.ts";
import { refreshRates } from "../../../scripts/refresh-rates.ts";
import { executeQuery } from "../../../engine/execute.ts";
import { validateQuery } from "../../../engine/ir/validate.ts";
import { DuckDbSession } from "../../../engine/sql/duckdb.ts";
import { storedEvent } from "../../storage/fixtures.ts";
import { datasetOf } from "../dataset.ts";
import { compiledSqlRows } from "../compiled-sql-rows.ts";
import { QueryData } from "../../../engine/query-data.ts";
import { compileSql } from "../../../engine/sql/compile.ts";

const day = (text: string) => utcDay(Date.parse(`${text}T00:00:00Z`));
// The ECB's layout: newest first, N/A for no rate, a trailing comma, a currency no longer quoted.
const ecbCsv = [
  "Date,USD,JPY,CYP,",
  "2025-05-09,1.1252,163.36,N/A,",
  "2025-05-08,1.1297,163.45,N/A,",
  "2025-05-06,1.1326,N/A,N/A,",
  "2007-12-31,1.4721,164.93,0.585274,",
].join("\n");
const directory = mkdtempSync(join(tmpdir(), "rates-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("ReferenceRates", () => {
  const rates = ReferenceRates.parse(ecbCsv, "test.csv");

  test("a day without a rate takes the latest one before it; before the first there is none", () => {
    expect(rates.perEuro("USD", day("2025-05-09"))).toBe(1.1252);
    expect(rates.perEuro("USD", day("2025-05-11"))).toBe(1.1252);
    expect(rates.perEuro("USD", day("2025-05-07"))).toBe(1.1326);
    expect(rates.perEuro("JPY", day("2025-05-07"))).toBe(164.93);
    expect(rates.perEuro("USD", day("2007-12-30"))).toBeNull();
    expect(rates.perEuro("EUR", day("2025-05-10"))).toBe(1);
    expect(rates.perEuro("EUR", day("2007-12-30"))).toBeNull();
    expect(rates.perEuro("ARS", day("2025-05-10"))).toBeNull();
    expect(rates.currencies).toEqual(["CYP", "EUR", "JPY", "USD"]);
    expect([rates.firstDay, rates.lastDay]).toEqual([day("2007-12-31"), day("2025-05-09")]);
  });

  test("a malformed table is refused, naming the file and the problem", () => {
    const problem = (text: string) => {
      try {
        ReferenceRates.parse(text, "x.csv");
        return null;
      } catch (error) {
        expect(error).toBeInstanceOf(RatesFileError);
        return (error as Error).message;
      }
    };
    expect(problem("Date,USD\n")).toBe("x.csv: no rates (a header line and at least one day are needed)");
    expect(problem("Day,USD\n2025-01-02,1.1\n")).toBe('x.csv: the first column must be Date, not "Day"');
    expect(problem("Date,USD\nyesterday,1.1\n")).toBe('x.csv: line 2: "yesterday" is not a date (YYYY-MM-DD)');
    expect(problem("Date,USD\n2025-01-02,1.1\n2025-01-02,1.2\n")).toBe("x.csv: the day 2025-01-02 is listed twice");
    expect(problem("Date,USD\n2025-01-02,-1\n")).toBe('x.csv: USD on 2025-01-02: "-1" is not a positive number');
  });

  test("the bundled table: real ECB rates from 2015-01-02 to 2025-05-09", () => {
    const bundled = referenceRates();
    expect(bundled).toBe(referenceRates());
    expect([bundled.firstDay, bundled.lastDay]).toEqual([day("2015-01-02"), day("2025-05-09")]);
    expect(bundled.perEuro("USD", day("2025-05-09"))).toBe(1.1252);
    expect(bundled.perEuro("JPY", day("2015-01-02"))).toBe(145.21);
    expect(bundled.currencies).toContain("GBP");
  });
});

describe("CurrencyConversion", () => {
  const rates = ReferenceRates.parse(ecbCsv, "test.csv");

  test("minor units of both currencies, the ratio of their rates on the day, rounded half away from zero", () => {
    expect(minorScale("JPY", "EUR")).toEqual({ multiply: 100, divide: 1 });
    expect(minorScale("EUR", "JPY")).toEqual({ multiply: 1, divide: 100 });
    expect(minorScale("KWD", "USD")).toEqual({ multiply: 1, divide: 10 });
    const toEuro = new CurrencyConversion("EUR", rates);
    const at = Date.parse("2025-05-10T12:00:00Z");
    expect(toEuro.convert(1000, "JPY", at)).toBe(612); // 1,000 yen = 6.1214... euros
    expect(toEuro.convert(-1000, "JPY", at)).toBe(-612);
    expect(toEuro.convert(1000, "EUR", at)).toBe(1000);
    expect(new CurrencyConversion("JPY", rates).convert(1000, "USD", at)).toBe(1452); // $10 = 1,451.8 yen
    expect(toEuro.converts("USD")).toBe(true);
    expect(toEuro.converts("XYZ")).toBe(false);
    expect(toEuro.converts(null)).toBe(false);
  });

  test("a day before the table's first is an error naming the currency and the day", () => {
    const toEuro = new CurrencyConversion("EUR", rates);
    expect(() => toEuro.convert(100, "USD", Date.parse("2007-06-01T00:00:00Z"))).toThrow(RevenueRateError);
    expect(() => toEuro.convert(100, "USD", Date.parse("2007-06-01T00:00:00Z"))).toThrow("no ECB reference rate for EUR on or before 2007-06-01 (the rate table test.csv starts 2007-12-31 for EUR)");
  });

  test("an event before the bundled table fails the query in both engines, naming the day", async () => {
    const dataset = await datasetOf([storedEvent({ event: "$charge", timestamp: Date.parse("2014-06-01T10:00:00Z"), person_index: 0, properties: { amount: 100, currency: "USD" } })]);
    const duck = await DuckDbSession.open(1);
    try {
      const document = { ir_version: 1, date_range: { from: "2014-06-01", to: "2014-06-02" }, insight: { kind: "revenue", series: [{ event: "$charge" }], currency: "EUR" } };
      const query = validateQuery(document, "UTC", Date.parse("2026-01-01T00:00:00Z"));
      const limits = { rowsMax: 1000, deadline: Number.MAX_SAFE_INTEGER };
      await expect(executeQuery(query, dataset.source(), limits)).rejects.toThrow("no ECB reference rate for EUR on or before 2014-06-01");
      const data = new QueryData(dataset.source(), query, limits);
      await data.prepare(["amount", "currency"]);
      const sql = await compileSql(query, data);
      await expect(compiledSqlRows(duck, dataset, query, limits, sql)).rejects.toThrow("no ECB reference rate for EUR on or before 2014-06-01");
    } finally {
      duck.close();
      await dataset.close();
    }
  });
});

describe("refreshing the bundled table", () => {
  const compact = "Date,USD,JPY\n2025-05-06,1.1326,\n2025-05-08,1.1297,163.45\n2025-05-09,1.1252,163.36\n";

  test("the ECB's CSV keeps the days since a date, oldest first, quoted currencies only, empty for no rate", () => {
    expect(compactRates(ecbCsv, "2015-01-01", "test.csv")).toBe(compact);
  });

  test("from the ECB's zip or its CSV, written whole", async () => {
    const zip = join(directory, "eurofxref-hist.zip");
    writeFileSync(zip, zipSync({ "eurofxref-hist.csv": new TextEncoder().encode(ecbCsv) }));
    const out = join(directory, "rates.csv");
    expect(await refreshRates(zip, "2015-01-01", out)).toEqual({ days: 3, out });
    expect(readFileSync(out, "utf8")).toBe(compact);
    const csv = join(directory, "eurofxref-hist.csv");
    writeFileSync(csv, ecbCsv);
    await refreshRates(csv, "2000-01-01", out);
    expect(readFileSync(out, "utf8")).toBe("Date,USD,JPY,CYP\n2007-12-31,1.4721,164.93,0.585274\n2025-05-06,1.1326,,\n2025-05-08,1.1297,163.45,\n2025-05-09,1.1252,163.36,\n");
    expect(ReferenceRates.parse(readFileSync(out, "utf8"), out).perEuro("CYP", day("2020-01-01"))).toBe(0.585274);
  });

  test("a zip without exactly one CSV, or rates that do not read back, are refused and nothing is written", async () => {
    const zip = join(directory, "two.zip");
    writeFileSync(zip, zipSync({ "a.csv": new Uint8Array(1), "b.csv": new Uint8Array(1) }));
    const out = join(directory, "untouched.csv");
    writeFileSync(out, "before");
    await expect(refreshRates(zip, "2015-01-01", out)).rejects.toThrow(`${zip}: expected one CSV file in the zip, found 2 (a.csv, b.csv)`);
    const bad = join(directory, "bad.csv");
    writeFileSync(bad, "Date,USD\n2025-05-09,zero\n");
    await expect(refreshRates(bad, "2015-01-01", out)).rejects.toThrow(`${bad}: USD on 2025-05-09: "zero" is not a positive number`);
    expect(readFileSync(out, "utf8")).toBe("before");
  });
});
