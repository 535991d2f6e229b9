// Ingest limits (spec 2, Limits), as named constants next to the code that enforces them.
export const batchEventsMin = 1;
export const batchEventsMax = 1000;
/** "20 MB" (spec 2, Limits), decimal: the same table gives the event size in KiB. */
export const requestBytesMax = 20_000_000;
/**
 * What a body within requestBytesMax can take on the wire, read before decoding: base64 makes
 * it 4/3 as long, and a form body's percent-encoding at most 3 times (every byte as %XX; in
 * base64 only +, / and = are encoded, so a form of base64 stays under 1.5 times). Past this a
 * body cannot decode to 20 MB in any encoding an SDK uses, and is refused without reading it.
 */
export const encodedRequestBytesMax = 3 * requestBytesMax;
export const eventBytesMax = 900 * 1024;
export const distinctIdLengthMax = 200;
export const groupTypesPerEventMax = 5;
export const projectEventsPerSecond = 5000;
export const projectEventsBurst = 50_000;
/** Not in the spec: event names and library fields, chosen generously. */
export const eventNameLengthMax = 200;
export const libFieldLengthMax = 100;
export const groupKeyLengthMax = 400;
/**
 * Not in the spec: the length of a key of `properties`, in characters. Each key may become a
 * column, named in the schema of every file that holds it: 500 keys of 20,000 characters
 * made 10 MB of schema per file. 1,000 leaves room for the longest keys SDKs build
 * (posthog-js's `$feature/<flag key>`, with flag keys of a few hundred characters).
 */
export const propertyKeyLengthMax = 1000;
/**
 * Not in the spec: the longest request URL ingest reads, in bytes (a GET carries its events in
 * the `data` query parameter). Longer ones answer 414 in the ingest shape, with CORS, up to the
 * HTTP server's own bound on a request's head (server/http/request-head.ts), which must stay above it.
 */
export const ingestUrlBytesMax = 64 * 1024;
/** An event stamped more than this after its own request was sent has an untrustworthy clock. */
export const clockSkewToleranceMs = 60_000;
/**
 * Not in the spec: how deep an event's JSON may nest objects and arrays (the event object is
 * level 1). Storage writes nested values back as JSON text, and a value nested tens of
 * thousands deep overflows the stack there: it would be acknowledged and then never stored.
 */
export const eventNestingMax = 100;
