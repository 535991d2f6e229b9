// UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Event ids, session ids
// and window ids are all v7, so ingest can check them and storage sorts them by time.

const hex = (byte: number) => (byte < 16 ? "0" : "") + byte.toString(16);

export function uuidv7(now = Date.now()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  for (let at = 5, ms = now; at >= 0; at--, ms = Math.floor(ms / 256)) bytes[at] = ms % 256;
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  let text = "";
  bytes.forEach((byte, at) => (text += (at === 4 || at === 6 || at === 8 || at === 10 ? "-" : "") + hex(byte)));
  return text;
}
