// PostHog carries payloads as JSON text (that is how it stores them) in /flags/definitions,
// /flags?v=2 metadata and /decide?v=3, and every SDK JSON.parses that text back (posthog-node,
// posthog-js: parsePayload). So a string payload "123" travels as "\"123\"" and comes back a
// string, not a number.

/** The payload as PostHog's JSON text, or null when there is none (null and undefined alike). */
export function posthogPayloadText(payload: unknown): string | null {
  return payload === null || payload === undefined ? null : JSON.stringify(payload);
}
