// Usage is counted per calendar month in UTC, named `YYYY-MM`.

export const monthOf = (now: number) => new Date(now).toISOString().slice(0, 7);

/** When the month `now` falls in ends (the next month's first millisecond, UTC). */
export function nextMonthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}
