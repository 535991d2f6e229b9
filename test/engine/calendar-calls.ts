// Counts the calendar lookups work makes: a measure of validation's cost that no machine's speed changes.

/** How many times `work` asks Intl for a calendar (each offset lookup is one). */
export function countCalendarCalls(work: () => void): number {
  const original = Intl.DateTimeFormat.prototype.formatToParts;
  let calls = 0;
  Intl.DateTimeFormat.prototype.formatToParts = function (this: Intl.DateTimeFormat, date?: Date | number) {
    calls++;
    return original.call(this, date);
  };
  try {
    work();
  } finally {
    Intl.DateTimeFormat.prototype.formatToParts = original;
  }
  return calls;
}
