// posthog-js sends its send time as the `_` query parameter, in milliseconds, and no `sent_at`
// in the body; PostHog's capture reads it (or `sent_at` in the query) as the request's sent_at
// when the body has none, to correct the events' timestamps for the browser's clock. Older SDKs
// sent seconds there: as milliseconds those name a time in 1970, so PostHog ignores any value
// before 2021, and so does this.

/** Send times before this (epoch ms) are taken for seconds, or nonsense, and ignored. */
export const querySentAtMinMs = Date.UTC(2021, 0, 1);
/** The latest instant a JavaScript date holds. */
const dateMsMax = 8.64e15;
const digits = /^\d{1,16}$/;

/** The send time (epoch ms) the query gives in `sent_at` or `_`, or null. */
export function querySentAt(query: URLSearchParams): number | null {
  for (const name of ["sent_at", "_"]) {
    const text = query.get(name);
    if (text === null || !digits.test(text)) continue;
    const sentAt = Number(text);
    if (sentAt >= querySentAtMinMs && sentAt <= dateMsMax) return sentAt;
  }
  return null;
}
