// One request to ingest: JSON, gzipped with the browser's own CompressionStream when it has one
// (ingest recognises gzip by its magic bytes; CORS allows the Content-Encoding header), and
// what its answer means for the items it carried: delivered, given up, or to be retried.
// On page hide, sendBeacon carries plain JSON (a beacon cannot set headers; ingest reads JSON
// sent as text/plain, which needs no preflight).

export type Outcome =
  | { kind: "sent"; answer: unknown }
  /** A 4xx other than 429: sending the same body again cannot succeed. */
  | { kind: "dropped" }
  /** A network error, 429 or 5xx; `afterMs` is the answer's Retry-After. */
  | { kind: "retry"; afterMs: number | null };

/** A beacon's body is limited (64 KiB for all of a page's beacons in flight in Chromium); a little less leaves room. */
export const beaconBytesMax = 60_000;

/** The UTF-8 length of `text` in bytes: what limits count (a character of CJK text or an emoji takes 3 or 4). */
export function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // Two bytes below U+0800, three above; each half of a surrogate pair adds one to its two units (four in all).
    if (code >= 0x80) bytes += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 1 : 2;
  }
  return bytes;
}

async function gzipped(text: string): Promise<ArrayBuffer | null> {
  if (typeof CompressionStream === "undefined") return null;
  try {
    return await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
  } catch {
    return null;
  }
}

function retryAfterMs(response: Response): number | null {
  const seconds = Number(response.headers.get("retry-after"));
  return response.headers.has("retry-after") && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
}

export async function post(url: string, text: string): Promise<Outcome> {
  const compressed = await gzipped(text);
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (compressed) headers["Content-Encoding"] = "gzip";
  let response: Response;
  try {
    response = await fetch(url, { method: "POST", body: compressed ?? text, headers });
  } catch {
    return { kind: "retry", afterMs: null };
  }
  if (response.status === 429 || response.status >= 500) return { kind: "retry", afterMs: retryAfterMs(response) };
  if (!response.ok) return { kind: "dropped" };
  return { kind: "sent", answer: await response.json().catch(() => null) };
}

/**
 * Sends `text` as the page goes away: a beacon; when the browser refuses it (too large, or its
 * quota of beacons in flight is used up) a keepalive fetch, and when that is refused too a plain
 * fetch, which completes if the page is only hidden, not closed.
 */
export function sendOnHide(url: string, text: string): void {
  let queued = false;
  const fits = utf8Bytes(text) <= beaconBytesMax;
  try {
    queued = fits && navigator.sendBeacon(url, text);
  } catch {
    queued = false;
  }
  if (queued) return;
  const send = (keepalive: boolean) => fetch(url, { method: "POST", body: text, keepalive, headers: { "Content-Type": "text/plain" } });
  send(fits)
    .catch(() => send(false))
    .catch(() => undefined);
}
