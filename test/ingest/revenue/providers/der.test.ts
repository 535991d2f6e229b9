import { describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { certificateExtensionOids, DerError, oidText } from "../../../../server/ingest/revenue/providers/der.ts";
import { loadAppStoreRoots } from "../../../../server/ingest/revenue/providers/app-store-roots.ts";
import { appleLikeChain } from "./app-store-signing.ts";
import { appleRealLeaf } from "./apple-real-chain.ts";

describe("DER extension OIDs", () => {
  test("object identifiers decode, multi-byte arcs and the joint 2.x arc included", () => {
    expect(oidText(Buffer.from("2a864886f76364060b01", "hex"))).toBe("1.2.840.113635.100.6.11.1");
    expect(oidText(Buffer.from("2a864886f76364060201", "hex"))).toBe("1.2.840.113635.100.6.2.1");
    expect(oidText(Buffer.from("551d13", "hex"))).toBe("2.5.29.19");
    expect(oidText(Buffer.from("8837", "hex"))).toBe("2.999");
    expect(() => oidText(new Uint8Array())).toThrow(DerError);
  });

  test("Apple's real leaf and the bundled root list their extensions", () => {
    expect([...certificateExtensionOids(Buffer.from(appleRealLeaf, "base64"))].sort()).toEqual([
      "1.2.840.113635.100.6.11.1", "1.3.6.1.5.5.7.1.1", "2.5.29.14", "2.5.29.15", "2.5.29.19", "2.5.29.32", "2.5.29.35",
    ]);
    expect([...certificateExtensionOids(loadAppStoreRoots(undefined)[0]!.raw)].sort()).toEqual(["2.5.29.14", "2.5.29.15", "2.5.29.19"]);
  });

  test("certificates made by the test helper carry the marker extensions node:crypto reads as valid certificates", () => {
    const chain = appleLikeChain(Date.UTC(2026, 10, 28));
    const leaf = Buffer.from(chain.x5c[0]!, "base64");
    expect(new X509Certificate(leaf).ca).toBe(false);
    expect([...certificateExtensionOids(leaf)].sort()).toEqual(["1.2.840.113635.100.6.11.1", "2.5.29.19"]);
  });

  test("hostile DER fails with DerError, never reads past its buffer", () => {
    const leaf = Buffer.from(appleRealLeaf, "base64");
    for (const bytes of [
      new Uint8Array(), Buffer.from([0x30]), Buffer.from([0x30, 0x85, 1, 1, 1, 1, 1]), Buffer.from([0x30, 0x82, 0xff, 0xff, 0]),
      Buffer.from([0x02, 0x01, 0x00]), Buffer.from([0x30, 0x03, 0x1f, 0x01, 0x00]), leaf.subarray(0, 200), Buffer.from([0x30, 0x80, 0x00, 0x00]),
    ]) {
      expect(() => certificateExtensionOids(bytes)).toThrow(DerError);
    }
    // Every truncation of a real certificate either parses or fails with DerError.
    for (let end = 1; end < leaf.length; end += 7) {
      try {
        certificateExtensionOids(leaf.subarray(0, end));
      } catch (error) {
        expect(error).toBeInstanceOf(DerError);
      }
    }
  });
});
