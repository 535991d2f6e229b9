import { describe, expect, test } from "bun:test";
import { parseRfc3339 } from "../../server/ingest/rfc3339.ts";
import { isUuidV7, uuidWords } from "../../storage/uuid-index.ts";
import { mulberry32 } from "../../bench/ingest/generator.ts";

const pad = (value: number, width: number) => String(value).padStart(width, "0");

describe("RFC 3339 date-times", () => {
  test("2,000 seeded random date-times (offsets, fractions, separators) read as Date.parse reads them", () => {
    const random = mulberry32(7);
    const pick = (n: number) => Math.floor(random() * n);
    for (let i = 0; i < 2000; i++) {
      const instant = new Date(Date.UTC(1970 + pick(130), pick(12), 1) + pick(31 * 86_400_000));
      const fraction = ["", `.${pad(pick(10), 1)}`, `.${pad(pick(1000), 3)}`, `.${pad(pick(1_000_000), 6)}`][pick(4)]!;
      const offset = pick(3) === 0 ? ["Z", "z"][pick(2)]! : `${pick(2) ? "+" : "-"}${pad(pick(24), 2)}:${pad(pick(60), 2)}`;
      const text = `${pad(instant.getUTCFullYear(), 4)}-${pad(instant.getUTCMonth() + 1, 2)}-${pad(instant.getUTCDate(), 2)}${["T", "t", " "][pick(3)]}` +
        `${pad(instant.getUTCHours(), 2)}:${pad(instant.getUTCMinutes(), 2)}:${pad(instant.getUTCSeconds(), 2)}${fraction}${offset}`;
      expect([text, parseRfc3339(text)]).toEqual([text, Date.parse(text.replace(" ", "T").replace("t", "T").replace("z", "Z"))]);
    }
  });

  test("leap days, the ends of months and of the day", () => {
    expect(parseRfc3339("2024-02-29T23:59:59.999Z")).toBe(Date.parse("2024-02-29T23:59:59.999Z"));
    expect(parseRfc3339("2000-02-29T00:00:00Z")).toBe(Date.parse("2000-02-29T00:00:00Z"));
    expect(parseRfc3339("2026-12-31T23:59:59-23:59")).toBe(Date.parse("2026-12-31T23:59:59-23:59"));
    expect(parseRfc3339("1969-12-31T23:59:59.5Z")).toBe(-500);
  });

  test.each([
    "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
    "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:60Z", "2026-01-01T00:00:00+24:00",
    "2026-01-01T00:00:00+01:60", "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00ZZ", "2026-01-01T00:00:00+0100",
    "2026-01-01X00:00:00Z", "2026/01/01T00:00:00Z", "26-01-01T00:00:00Z", "2026-01-01T0:00:00Z", "２０２６-01-01T00:00:00Z", "",
  ])("%p is refused", (text) => {
    expect(parseRfc3339(text)).toBeNull();
  });

  test("anything but a string is refused", () => {
    for (const value of [null, undefined, 1_795_000_000_000, { at: "2026-01-01T00:00:00Z" }]) expect(parseRfc3339(value)).toBeNull();
  });
});

describe("uuids", () => {
  test("words of a uuid in either case; UUIDv7 needs version 7 and variant 10", () => {
    const words = new Uint32Array(4);
    expect(uuidWords("019A8B2C-0000-7000-8000-00000000000a", words)).toBe(true);
    expect([...words]).toEqual([0x019a8b2c, 0x00007000, 0x80000000, 0x0000000a]);
    expect(uuidWords("ffffffff-ffff-7fff-bfff-ffffffffffff", words)).toBe(true);
    expect([...words]).toEqual([0xffffffff, 0xffff7fff, 0xbfffffff, 0xffffffff]);
    expect(isUuidV7("019a8b2c-0000-7000-8000-00000000000a")).toBe(true);
    expect(isUuidV7("019a8b2c-0000-7000-b000-00000000000a")).toBe(true);
    expect(isUuidV7("019a8b2c-0000-4000-8000-00000000000a")).toBe(false);
    expect(isUuidV7("019a8b2c-0000-7000-c000-00000000000a")).toBe(false);
    expect(isUuidV7("019a8b2c-0000-7000-8000-00000000000g")).toBe(false);
    expect(isUuidV7("019a8b2c00007000800000000000000a")).toBe(false);
    expect(isUuidV7("019a8b2c-0000-7000-8000-00000000000a ")).toBe(false);
    expect(isUuidV7("019a8b2c-0000-7000-8000-0000000000é0")).toBe(false);
    expect(isUuidV7(42)).toBe(false);
  });

  test("10,000 generated UUIDv7s pass", () => {
    for (let i = 0; i < 10_000; i++) expect(isUuidV7(Bun.randomUUIDv7())).toBe(true);
  });
});
