import { describe, expect, test } from "bun:test";
import {
  TranscriptRecorder,
  transcriptEntryCharsMax,
  transcriptHeadEntriesMax,
  transcriptTailEntriesMax,
} from "../../../server/mail/delivery/transcript.ts";

const at = "2026-11-27T10:00:00.000Z";
const recorder = (secrets: string[] = [], seen: string[] = []) =>
  new TranscriptRecorder(secrets, { onClientLine: (line) => seen.push(`C ${line}`), onServerReply: (reply) => seen.push(`S ${reply}`) }, () => new Date(at));

describe("TranscriptRecorder", () => {
  test("commands, replies and events, each with its time; the rest of nodemailer's debug output is left out", () => {
    const seen: string[] = [];
    const transcript = recorder([], seen);
    transcript.logger.info({ tnx: "network" }, "%s established to %s:%s", "Connection", "127.0.0.1", 25);
    transcript.logger.debug({ tnx: "server" }, "220 mx ESMTP");
    transcript.logger.debug({ tnx: "dns" }, "Resolved %s", "mx");
    transcript.logger.debug({ tnx: "client" }, "EHLO out");
    transcript.logger.warn({ tnx: "smtp" }, "%s", "Connection closed unexpectedly");
    expect(transcript.finish()).toEqual({
      entries: [
        { at, from: "event", text: "Connection established to 127.0.0.1:25" },
        { at, from: "server", text: "220 mx ESMTP" },
        { at, from: "client", text: "EHLO out" },
        { at, from: "event", text: "Connection closed unexpectedly" },
      ],
      omittedEntries: 0,
    });
    expect(seen).toEqual(["S 220 mx ESMTP", "C EHLO out"]);
  });

  test("an AUTH exchange is redacted until the server's final reply, and the secrets wherever they appear", () => {
    const transcript = recorder(["user@x", "pa55"]);
    const lines: [string, string][] = [
      ["client", "AUTH LOGIN"],
      ["server", "334 VXNlcm5hbWU6"],
      ["client", Buffer.from("user@x").toString("base64")],
      ["server", "334 UGFzc3dvcmQ6"],
      ["client", "/* anything */"],
      ["server", "235 2.7.0 Authentication successful"],
      ["client", "MAIL FROM:<a@b>"],
      ["server", "250 hello user@x, your password is pa55"],
    ];
    for (const [tnx, line] of lines) transcript.logger.debug({ tnx }, line);
    expect(transcript.finish().entries.map(({ from, text }) => `${from} ${text}`)).toEqual([
      "client AUTH LOGIN",
      "server 334 VXNlcm5hbWU6",
      "client [credentials redacted]",
      "server 334 UGFzc3dvcmQ6",
      "client [credentials redacted]",
      "server 235 2.7.0 Authentication successful",
      "client MAIL FROM:<a@b>",
      "server 250 hello [credentials redacted], your password is [credentials redacted]",
    ]);
  });

  test("AUTH with an initial response keeps only the mechanism", () => {
    const transcript = recorder();
    transcript.logger.debug({ tnx: "client" }, `AUTH PLAIN ${Buffer.from("\0u\0p").toString("base64")}`);
    expect(transcript.finish().entries.map((entry) => entry.text)).toEqual(["AUTH PLAIN [credentials redacted]"]);
  });

  test("the start and the end of a long conversation are kept, the middle is counted", () => {
    const transcript = recorder();
    const count = transcriptHeadEntriesMax + transcriptTailEntriesMax + 500;
    for (let i = 0; i < count; i++) transcript.logger.debug({ tnx: "server" }, `250 line ${i}`);
    const { entries, omittedEntries } = transcript.finish();
    expect(omittedEntries).toBe(500);
    expect(entries.length).toBe(transcriptHeadEntriesMax + 1 + transcriptTailEntriesMax);
    expect([entries[0]!.text, entries[transcriptHeadEntriesMax]!.text, entries.at(-1)!.text]).toEqual(["250 line 0", "[500 entries omitted]", `250 line ${count - 1}`]);
  });

  test("a long line is cut, with the count of what was cut", () => {
    const transcript = recorder();
    transcript.logger.debug({ tnx: "server" }, `250 ${"x".repeat(transcriptEntryCharsMax + 96)}`);
    expect(transcript.finish().entries[0]!.text).toBe(`250 ${"x".repeat(transcriptEntryCharsMax - 4)}… [100 more characters]`);
  });
});
