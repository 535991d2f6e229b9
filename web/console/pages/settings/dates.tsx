// Dates in the settings lists: the day in a table cell, the exact time in its tooltip.
import { formatDateTime } from "../../format/date-time.ts";

/** The time zone of the person's browser, for pages outside any project. */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

export function formatDay(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone }).format(new Date(iso));
}

/** A day with its exact time on hover. */
export function Day({ iso, timeZone }: { iso: string; timeZone: string }) {
  return <time class="nowrap" dateTime={iso} title={formatDateTime(iso, timeZone)}>{formatDay(iso, timeZone)}</time>;
}
