// Replay ingest limits (spec 2, Limits: "replay chunks per request 1–50; 1–20,000 events per
// chunk") and the chunk fields' allowed values, as named constants next to the code that
// enforces them. The request size bound is event ingest's (limits.ts requestBytesMax).
export const replayChunksMin = 1;
export const replayChunksMax = 50;
export const chunkEventsMin = 1;
export const chunkEventsMax = 20_000;
/** Not in the spec: a chunk's sequence number is a non-negative 32-bit integer. */
export const chunkSeqMax = 2 ** 31 - 1;
/** rrweb's event types: DomContentLoaded (0) through Plugin (6). */
export const rrwebTypeMax = 6;
export const replayPlatforms: ReadonlySet<string> = new Set(["web", "ios", "android", "react-native", "tauri"]);
/** Not in the spec (it names `mode` only): DOM snapshots (web), or a mobile SDK's wireframes or screenshots. */
export const replayModes: ReadonlySet<string> = new Set(["dom", "wireframe", "screenshot"]);
/** Not in the spec: how far past the request's arrival an event's time may be (a device clock running fast). */
export const replayFutureToleranceMs = 60 * 60_000;
