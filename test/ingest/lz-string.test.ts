// The bounded lz-string decoder (server/ingest/lz-string.ts) against the library that old
// posthog-js used to encode: the same text for what it encodes, the same refusals for damaged
// payloads, and the bound on the output at its edge.
import { describe, expect, test } from "bun:test";
import { compressToBase64, decompressFromBase64 } from "lz-string";
import { decodeLzBase64, type LzDecoded } from "../../server/ingest/lz-string.ts";
import { mulberry32 } from "../../bench/ingest/generator.ts";
import { lzRepeatedTextPayload } from "./lz-payloads.ts";

const random = mulberry32(11);
const pick = (alphabet: string) => alphabet[Math.floor(random() * alphabet.length)]!;

/** Texts of every kind the format distinguishes: few distinct characters (long dictionary runs), JSON-like, and any UTF-16 unit (16-bit literals). */
function sampleTexts(): string[] {
  const texts = ["a", "{}", '{"api_key":"phc_x","batch":[]}', "é😀"];
  for (let index = 0; index < 300; index++) {
    const length = Math.floor(random() * 2000) + 1;
    const kind = index % 3;
    let text = "";
    for (let i = 0; i < length; i++) {
      text += kind === 0 ? pick("ab") : kind === 1 ? pick('abcdefghij{}":, ') : String.fromCharCode(Math.floor(random() * 0xd7ff) + 1);
    }
    texts.push(text);
  }
  return texts;
}

describe("decodeLzBase64", () => {
  test("decodes what lz-string's compressToBase64 encodes, for every kind of text", () => {
    const texts = sampleTexts();
    const wrong = texts.filter((text) => {
      const decoded = decodeLzBase64(compressToBase64(text), text.length);
      return !decoded.ok || decoded.text !== text;
    });
    expect(wrong).toEqual([]);
  });

  test("damaged payloads: the same verdict as lz-string (a cut may still end on an end code); a character outside the alphabet is refused", () => {
    const payload = compressToBase64('{"api_key":"phc_x","batch":[{"event":"signed_up","distinct_id":"user-1"}]}');
    const cuts = Array.from({ length: payload.length }, (_, length) => payload.slice(0, length));
    const libraryVerdict = (text: string): LzDecoded => {
      const decoded = decompressFromBase64(text);
      return decoded ? { ok: true, text: decoded } : { ok: false, reason: "invalid" };
    };
    expect(cuts.map((cut) => decodeLzBase64(cut, 1_000_000))).toEqual(cuts.map(libraryVerdict));
    expect(cuts.filter((cut) => !decodeLzBase64(cut, 1_000_000).ok).length).toBeGreaterThan(payload.length / 2);
    // lz-string reads a foreign character as zero bits and decodes on; this decoder refuses it.
    expect(["====", "", "{not lz}", payload.replace(/[A-Z]/, "*")].map((text) => decodeLzBase64(text, 1_000_000))).toEqual(
      Array(4).fill({ ok: false, reason: "invalid" }),
    );
  });

  test("the bound on the output at its edge: exactly as long passes, one unit less refuses", () => {
    const text = "x".repeat(50_000) + "end";
    const payload = compressToBase64(text);
    expect([decodeLzBase64(payload, text.length), decodeLzBase64(payload, text.length - 1)]).toEqual([
      { ok: true, text },
      { ok: false, reason: "too_long" },
    ]);
  });

  test("a payload of 16 KB standing for 25 million characters is refused without building them", () => {
    const payload = lzRepeatedTextPayload("a", 25_000_000);
    expect(payload.length).toBeLessThan(16_000);
    expect(decodeLzBase64(payload, 20_000_000)).toEqual({ ok: false, reason: "too_long" });
    // The same construction at a size that can be built decodes to what it stands for.
    expect(decodeLzBase64(lzRepeatedTextPayload("a", 100_000), 100_000)).toEqual({ ok: true, text: "a".repeat(100_000) });
  });
});
