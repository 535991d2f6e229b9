// Daily reference rates for converting revenue between currencies: the European Central
// Bank's euro foreign exchange reference rates (how many units of a currency one euro buys,
// published on TARGET working days). The table ships with the engine
// (rates/eurofxref.csv, from 2015 on; scripts/refresh-rates.ts rewrites it from the ECB's
// eurofxref-hist.zip) and a deployment may point REVENUE_RATES_FILE at a newer file in the
// same layout (the ECB's own CSV reads as is: `Date,USD,JPY,...`, `N/A` or empty for no rate,
// rows in any order). The table is read once per process.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const bundledRatesFile = join(import.meta.dir, "rates", "eurofxref.csv");
/** The euro: every rate is per euro, so its own rate is 1 on every day the table has. */
export const baseCurrency = "EUR";
const dayMs = 86_400_000;

/** A problem with the rate table's file (its path and what is wrong). */
export class RatesFileError extends Error {}

interface CurrencyRates {
  /** Days since 1970-01-01 (UTC) with a published rate, ascending. */
  days: Int32Array;
  /** Units of the currency per euro on those days. */
  perEuro: Float64Array;
}

/** Days since 1970-01-01 of an instant (its UTC day). */
export const utcDay = (instant: number) => Math.floor(instant / dayMs);
export const dayText = (day: number) => new Date(day * dayMs).toISOString().slice(0, 10);

export class ReferenceRates {
  private constructor(
    readonly file: string,
    private readonly byCurrency: Map<string, CurrencyRates>,
    /** The first and last day of the table. */
    readonly firstDay: number,
    readonly lastDay: number,
  ) {}

  /** Parses a table in the ECB's CSV layout. */
  static parse(text: string, file: string): ReferenceRates {
    const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
    if (lines.length < 2) throw new RatesFileError(`${file}: no rates (a header line and at least one day are needed)`);
    const header = lines[0]!.split(",").map((name) => name.trim());
    if (header[0] !== "Date") throw new RatesFileError(`${file}: the first column must be Date, not ${JSON.stringify(header[0])}`);
    const columns = header.slice(1).map((code, index) => ({ code, index: index + 1 })).filter(({ code }) => /^[A-Z]{3}$/.test(code));
    const rows = lines.slice(1).map((line, index) => {
      const cells = line.split(",");
      const day = utcDay(Date.parse(`${cells[0]!.trim()}T00:00:00Z`));
      if (!Number.isInteger(day)) throw new RatesFileError(`${file}: line ${index + 2}: ${JSON.stringify(cells[0])} is not a date (YYYY-MM-DD)`);
      return { day, cells };
    });
    rows.sort((a, b) => a.day - b.day);
    for (let i = 1; i < rows.length; i++) {
      if (rows[i]!.day === rows[i - 1]!.day) throw new RatesFileError(`${file}: the day ${dayText(rows[i]!.day)} is listed twice`);
    }
    const byCurrency = new Map<string, CurrencyRates>();
    byCurrency.set(baseCurrency, { days: Int32Array.from(rows, (row) => row.day), perEuro: new Float64Array(rows.length).fill(1) });
    for (const { code, index } of columns) {
      const days: number[] = [];
      const perEuro: number[] = [];
      for (const row of rows) {
        const cell = (row.cells[index] ?? "").trim();
        if (cell === "" || cell === "N/A") continue;
        const rate = Number(cell);
        if (!(rate > 0) || !Number.isFinite(rate)) throw new RatesFileError(`${file}: ${code} on ${dayText(row.day)}: ${JSON.stringify(cell)} is not a positive number`);
        days.push(row.day);
        perEuro.push(rate);
      }
      if (days.length > 0) byCurrency.set(code, { days: Int32Array.from(days), perEuro: Float64Array.from(perEuro) });
    }
    return new ReferenceRates(file, byCurrency, rows[0]!.day, rows[rows.length - 1]!.day);
  }

  /** The currencies the table has a rate for (the euro included), sorted. */
  get currencies(): string[] {
    return [...this.byCurrency.keys()].sort();
  }

  has(currency: string): boolean {
    return this.byCurrency.has(currency);
  }

  /** The first day the currency has a rate (it must be one the table has). */
  firstDayOf(currency: string): number {
    return this.byCurrency.get(currency)!.days[0]!;
  }

  /**
   * Units of `currency` per euro on `day`: the rate published that day, else the latest one
   * published before it (no rate on weekends and TARGET holidays); null before the first.
   */
  perEuro(currency: string, day: number): number | null {
    const rates = this.byCurrency.get(currency);
    if (!rates) return null;
    const days = rates.days;
    let low = 0;
    let high = days.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (days[middle]! <= day) low = middle + 1;
      else high = middle;
    }
    return low === 0 ? null : rates.perEuro[low - 1]!;
  }
}

let loaded: ReferenceRates | null = null;

/** The file the process reads its rates from. */
export const ratesFile = () => process.env.REVENUE_RATES_FILE || bundledRatesFile;

/**
 * Replaces the process's table (null: read the file again on next use): for a process that
 * must take a refreshed file without a restart, and for tests of tables with other days.
 */
export function useReferenceRates(rates: ReferenceRates | null): void {
  loaded = rates;
}

/** The process's rate table, read on first use. */
export function referenceRates(): ReferenceRates {
  if (loaded === null) {
    const file = ratesFile();
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new RatesFileError(`${file}: cannot read the reference rates (REVENUE_RATES_FILE): ${(error as Error).message}`);
    }
    loaded = ReferenceRates.parse(text, file);
  }
  return loaded;
}
