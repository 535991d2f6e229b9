// Calendar days in the project's time zone as instants: a date picker's "2026-11-27" in
// Europe/Berlin starts at 2026-11-26T23:00:00Z. The browser's own zone plays no part.

/** How far `timeZone`'s wall clock is ahead of UTC at `instantMs`, in milliseconds. */
function zoneOffsetMs(instantMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" }).formatToParts(new Date(instantMs));
  const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)?.value);
  const wall = Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second"));
  return wall - Math.floor(instantMs / 1000) * 1000;
}

/** The instant `day` (YYYY-MM-DD) begins in `timeZone`, plus `days` whole days (1: when it ends). */
export function zonedDayStart(day: string, timeZone: string, days = 0): Date {
  const [year, month, date] = day.split("-").map(Number) as [number, number, number];
  const wall = Date.UTC(year, month - 1, date + days);
  // Two passes: the offset at the first guess may differ from the offset at the answer across a DST change.
  const guess = wall - zoneOffsetMs(wall, timeZone);
  return new Date(wall - zoneOffsetMs(guess, timeZone));
}

/** The day (YYYY-MM-DD) `iso` falls on in `timeZone`. */
export function zonedDay(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(iso));
}
