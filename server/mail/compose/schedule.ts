import { dayMs, hourMs, minuteMs } from "../../clock.ts";
import { ComposeError } from "./errors.ts";

// `scheduled_at` accepts two forms:
// - ISO 8601 with a date, a time and a zone: 2026-12-01T09:30:00Z, 2026-12-01T10:30:00.250+01:00
//   (seconds and fractions optional). A time without a zone is refused: the sender's and the
//   server's idea of local time differ, and guessing sends at the wrong hour.
// - relative: "in N minutes", "in N hours", "in N days" (singular units too, any case).
// Phrases such as "tomorrow at 9am" are refused: they need the sender's time zone.
// The time must be after `now` and at most scheduleHorizonMs after it.

export const scheduleHorizonMs = 30 * dayMs;

const isoPattern =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const relativePattern = /^in\s+(\d{1,7})\s+(minute|minutes|hour|hours|day|days)$/i;
const unitMs: Record<string, number> = { minute: minuteMs, hour: hourMs, day: dayMs };

/** The scheduled time as an ISO string (UTC, milliseconds), or null when none was asked. */
export function parseScheduledAt(input: unknown, now: Date, field = "scheduled_at"): string | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== "string") throw new ComposeError(field, "invalid_type", "must be a string");
  const at = parseTime(input.trim(), now, field);
  if (at <= now.getTime()) throw new ComposeError(field, "invalid_value", "must be in the future");
  if (at - now.getTime() > scheduleHorizonMs) {
    throw new ComposeError(field, "invalid_value", `must be at most ${scheduleHorizonMs / dayMs} days ahead`);
  }
  return new Date(at).toISOString();
}

function parseTime(value: string, now: Date, field: string): number {
  const relative = relativePattern.exec(value);
  if (relative) {
    const unit = relative[2]!.toLowerCase().replace(/s$/, "");
    return now.getTime() + Number(relative[1]) * unitMs[unit]!;
  }
  const iso = isoPattern.exec(value);
  if (!iso) {
    throw new ComposeError(
      field,
      "invalid_value",
      'must be an ISO 8601 time with a zone (2026-12-01T09:30:00Z) or "in N minutes|hours|days"',
    );
  }
  const part = (index: number): number => Number(iso[index] ?? 0);
  const [year, month, day, hour, minute, second] = [part(1), part(2), part(3), part(4), part(5), part(6)];
  const [offsetHours, offsetMinutesPart] = [part(10), part(11)];
  const milliseconds = Number((iso[7] ?? "0").padEnd(3, "0").slice(0, 3));
  const offsetMinutes = (iso[9] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutesPart);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const inRange =
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59 &&
    offsetHours <= 23 && offsetMinutesPart <= 59;
  if (!inRange) throw new ComposeError(field, "invalid_value", "is not a valid date and time");
  return Date.UTC(year, month - 1, day, hour, minute, second, milliseconds) - offsetMinutes * minuteMs;
}
