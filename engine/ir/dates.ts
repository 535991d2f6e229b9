// Date expressions of the Query IR (spec 2: now, today, yesterday, -7d, -12w, -3m, -1y, -24h,
// a date, an ISO 8601 timestamp), evaluated in the project's time zone. Expressions that name
// a day (today, yesterday, -Nd/w/m/y, a date) mean its start in `from` and its end in `to`,
// so {from: "-7d", to: "yesterday"} covers seven whole days; `now`, -Nh and timestamps are
// exact instants.
import { dayMs, instantOf, localTime } from "../time-zone.ts";

export type DateSide = "from" | "to";

const relativePattern = /^-(\d{1,5})([hdwmy])$/;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const timestampPattern = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const hourMs = 3_600_000;

export class DateExpressionError extends Error {}

/**
 * The calendar years a date expression may name (in the project's zone). No event is older
 * than 1970, and 9999-12-31 is the latest date a four-digit year writes (a common "no end");
 * past them calendar arithmetic breaks down (years before 100 and before year 1 read wrong).
 */
export const dateYearMin = 1970;
export const dateYearMax = 9999;

function checkYear(expression: string, year: number): void {
  if (year < dateYearMin) throw new DateExpressionError(`"${expression}" is before ${dateYearMin}-01-01, the earliest date a query can name`);
  if (year > dateYearMax) throw new DateExpressionError(`"${expression}" is after ${dateYearMax}-12-31, the latest date a query can name`);
}

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

function validDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** The start (from) or end (to) of a local calendar day. */
function dayBound(zone: string, year: number, month: number, day: number, side: DateSide): number {
  if (side === "from") return instantOf(zone, year, month, day);
  const next = new Date(Date.UTC(year, month - 1, day) + dayMs);
  return instantOf(zone, next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate());
}

/** The instant a date expression stands for, or a DateExpressionError saying why it is not one. */
export function evaluateDate(expression: string, side: DateSide, zone: string, now: number): number {
  const text = expression.trim();
  if (text === "now") return now;
  const today = localTime(zone, now);
  if (text === "today" || text === "yesterday") {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day) - (text === "yesterday" ? dayMs : 0));
    return dayBound(zone, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), side);
  }
  const relative = relativePattern.exec(text);
  if (relative) {
    const amount = Number(relative[1]);
    const unit = relative[2]!;
    if (unit === "h") {
      const instant = now - amount * hourMs;
      checkYear(expression, localTime(zone, instant).year);
      return instant;
    }
    let year = today.year;
    let month = today.month;
    let day = today.day;
    if (unit === "d" || unit === "w") {
      const date = new Date(Date.UTC(year, month - 1, day) - amount * (unit === "w" ? 7 : 1) * dayMs);
      [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    } else {
      const months = year * 12 + (month - 1) - amount * (unit === "y" ? 12 : 1);
      year = Math.floor(months / 12);
      month = (months % 12) + 1;
      // The 31st three months back may not exist: the month's last day stands for it.
      day = Math.min(day, daysInMonth(year, month));
    }
    checkYear(expression, year);
    return dayBound(zone, year, month, day, side);
  }
  const date = datePattern.exec(text);
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (!validDate(year, month, day)) throw new DateExpressionError(`"${expression}" is not a calendar date`);
    checkYear(expression, year);
    return dayBound(zone, year, month, day, side);
  }
  const timestamp = timestampPattern.exec(text);
  if (timestamp) {
    const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(timestamp[i]));
    const second = Number(timestamp[6] ?? 0);
    if (!validDate(year!, month!, day!) || hour! > 23 || minute! > 59 || second > 59) {
      throw new DateExpressionError(`"${expression}" is not a valid timestamp`);
    }
    checkYear(expression, year!);
    const fraction = timestamp[7] ? Math.floor(Number(timestamp[7]) * 1000) : 0;
    const zonePart = timestamp[8];
    if (!zonePart) return instantOf(zone, year!, month!, day!, hour!, minute!, second) + fraction;
    const utc = Date.UTC(year!, month! - 1, day!, hour!, minute!, second) + fraction;
    if (zonePart.toUpperCase() === "Z") return utc;
    const digits = zonePart.replace(":", "");
    const offsetMinutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
    if (offsetMinutes > 18 * 60) throw new DateExpressionError(`"${expression}" has an offset beyond 18 hours`);
    return utc - (digits[0] === "-" ? -1 : 1) * offsetMinutes * 60_000;
  }
  throw new DateExpressionError(
    `"${expression}" is not a date expression (now, today, yesterday, -Nh, -Nd, -Nw, -Nm, -Ny, YYYY-MM-DD or an ISO 8601 timestamp)`,
  );
}
