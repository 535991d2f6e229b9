import { payloadTooLarge, validation } from "./errors.ts";

/** Reads the body as a stream and stops as soon as it passes `maxBytes` (413). */
export async function readBodyLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) throw payloadTooLarge(maxBytes);
  // With a declared length the HTTP layer reads exactly that many bytes: one buffer, no copy,
  // and no stream object (reading request.body makes one).
  if (Number.isFinite(declared)) return await request.bytes();
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** Parses a JSON request body within a size limit; an empty body is `undefined`. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const bytes = await readBodyLimited(request, maxBytes);
  if (bytes.byteLength === 0) return undefined;
  const contentType = request.headers.get("content-type") ?? "";
  if (contentType && !/^application\/(.+\+)?json\b/i.test(contentType)) {
    throw validation("request body must be JSON (Content-Type: application/json)");
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw validation("request body is not valid JSON");
  }
}

/**
 * Parses an application/x-www-form-urlencoded body (OAuth's token and revocation endpoints)
 * within a size limit; null when the body is of another type, for the endpoint to refuse.
 */
export async function readFormBody(request: Request, maxBytes: number): Promise<URLSearchParams | null> {
  const bytes = await readBodyLimited(request, maxBytes);
  if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers.get("content-type") ?? "")) return null;
  return new URLSearchParams(new TextDecoder().decode(bytes));
}
