import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import MailComposer from "nodemailer/lib/mail-composer";
import { DkimSigningError, signMessage } from "../../../server/mail/delivery/dkim.ts";

const rsaKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const message = await new MailComposer({
  from: "hello@sender.test",
  to: "alice@receiver.test",
  cc: "bob@receiver.test",
  replyTo: "support@sender.test",
  subject: "Signed",
  text: "Body",
  messageId: "<m1@sender.test>",
  date: new Date("2026-11-27T10:00:00Z"),
  headers: { "X-Not-Signed": "1" },
})
  .compile()
  .build();

const signatureTags = (signed: Buffer) => {
  const header = /^DKIM-Signature:(.*?)\r\n(?![ \t])/s.exec(signed.toString("latin1"))?.[1] ?? "";
  return Object.fromEntries(
    header
      .replace(/\r\n[ \t]+/g, "")
      .split(";")
      .map((tag) => tag.trim().split(/=(.*)/s))
      .filter(([name]) => name)
      .map(([name, value]) => [name, name === "b" ? "…" : value?.replace(/\s+/g, "")]),
  );
};

describe("signMessage", () => {
  test("rsa-sha256, relaxed/relaxed, over the message's own headers of nodemailer's default list, in front of the unchanged message", async () => {
    const signed = await signMessage(message, { domainName: "sender.test", keySelector: "s1", privateKey: rsaKey });
    expect(signatureTags(signed)).toEqual({
      v: "1",
      a: "rsa-sha256",
      c: "relaxed/relaxed",
      d: "sender.test",
      q: "dns/txt",
      s: "s1",
      bh: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/),
      h: "from:reply-to:subject:date:message-id:to:cc:mime-version:content-type:content-transfer-encoding",
      b: "…",
    });
    expect(signed.subarray(signed.length - message.length)).toEqual(message);
  });

  test("a key that is not a key, or not RSA, is refused instead of sending the message unsigned", async () => {
    const ed25519Key = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const attempts = await Promise.all(
      ["not a key", ed25519Key].map((privateKey) =>
        signMessage(message, { domainName: "sender.test", keySelector: "s1", privateKey }).then(
          () => "signed",
          (error: unknown) => (error instanceof DkimSigningError ? error.code : String(error)),
        ),
      ),
    );
    expect(attempts).toEqual(["dkim_signing_failed", "dkim_signing_failed"]);
  });
});
