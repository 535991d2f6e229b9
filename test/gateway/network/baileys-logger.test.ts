import { describe, expect, test } from "bun:test";
import { logRecordCharsMax, makeBaileysLogger } from "../../../server/gateway/network/baileys/logger.ts";

function capture(level: Parameters<typeof makeBaileysLogger>[0]) {
  const lines: string[] = [];
  return { lines, logger: makeBaileysLogger(level, { instance: "inst-1" }, (line) => void lines.push(line)) };
}

describe("the logger given to Baileys", () => {
  test("silent writes nothing at any level", () => {
    const { lines, logger } = capture("silent");
    for (const write of [logger.trace, logger.debug, logger.info, logger.warn, logger.error]) write({ a: 1 }, "x");
    expect(lines).toEqual([]);
    expect(logger.level).toBe("silent");
  });

  test("records at or above the level, one JSON line each, with bindings, child bindings and the message", () => {
    const { lines, logger } = capture("warn");
    logger.info({ ignored: true }, "below");
    logger.warn({ id: "3EB0" }, "skipped");
    logger.child({ class: "socket" }).error(new Error("boom"));
    logger.error("plain text");
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { level: "warn", instance: "inst-1", id: "3EB0", msg: "skipped" },
      { level: "error", instance: "inst-1", class: "socket", error: { name: "Error", message: "boom" } },
      { level: "error", instance: "inst-1", value: "plain text" },
    ]);
  });

  test("bytes, errors and bigints are summarised; long records are cut; a cycle does not throw", () => {
    const { lines, logger } = capture("trace");
    logger.debug({ key: Buffer.alloc(64, 7), raw: new Uint8Array(3), error: new TypeError("bad"), count: 12n });
    logger.debug({ text: "y".repeat(logRecordCharsMax * 2) });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    logger.debug(cyclic);
    expect(JSON.parse(lines[0]!)).toEqual({ level: "debug", instance: "inst-1", key: "<64 bytes>", raw: "<3 bytes>", error: { name: "TypeError", message: "bad" }, count: "12" });
    expect(lines[1]!.length).toBe(logRecordCharsMax + 1);
    expect(lines[1]!.endsWith("…")).toBe(true);
    expect(JSON.parse(lines[2]!)).toEqual({ level: "error", msg: "unserialisable log record" });
  });
});
