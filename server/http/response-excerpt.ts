// The start of an answer from a receiver we post to (webhooks, findings destinations), for the
// attempt log: a receiver may answer with anything, endlessly, so no more than is kept is read.

/** The first `bytesMax` bytes of the answer's body as text (a character cut at the edge becomes U+FFFD); null when it has none. */
export async function responseExcerpt(response: Response, bytesMax: number): Promise<string | null> {
  if (!response.body) return null;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  while (length < bytesMax) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.length;
  }
  void reader.cancel().catch(() => {});
  if (length === 0) return null;
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks).subarray(0, bytesMax));
}
