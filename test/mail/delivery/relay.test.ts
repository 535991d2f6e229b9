import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import MailComposer from "nodemailer/lib/mail-composer";
import { parseRelayUrl, redactRelayUrl, RelayUrlError } from "../../../server/mail/delivery/relay.ts";
import { deliver, type DeliveryResult } from "../../../server/mail/delivery/smtp-delivery.ts";
import { SmtpReceiver } from "../helpers/smtp-receiver.ts";

const credentials = { user: "relay-user@sender.test", pass: "s3cret:p@ss/word" };
const relayUrl = (receiver: SmtpReceiver, pass = credentials.pass, query = "?verify_certificate=false", scheme = "smtp") =>
  `${scheme}://${encodeURIComponent(credentials.user)}:${encodeURIComponent(pass)}@127.0.0.1:${receiver.port}${query}`;
const dkim = {
  domainName: "sender.test",
  keySelector: "s1",
  privateKey: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
};
const timeouts = { connectMs: 2_000, greetingMs: 2_000, commandMs: 2_000, sessionMs: 5_000 };
const recipients = ["alice@receiver.test", "bob@elsewhere.test"];
const message = await new MailComposer({ from: "hello@sender.test", to: recipients, subject: "Via relay", text: "Hello" }).compile().build();

let relay: SmtpReceiver;
beforeAll(async () => {
  relay = await SmtpReceiver.start({ hostName: "relay.test", credentials });
});
afterAll(() => relay.close());

const send = (url: string): Promise<DeliveryResult> =>
  deliver({ message, dkim, envelopeFrom: "bounces@sender.test", recipients, heloName: "out.sender.test", route: { mode: "relay", url }, timeouts });

const everything = (result: DeliveryResult) => JSON.stringify(result);

describe("relay mode", () => {
  test("STARTTLS, AUTH, recipients of several domains in one transaction; the credentials never reach the transcript", async () => {
    relay.reset();
    const result = await send(relayUrl(relay));
    expect(result.recipients.map(({ recipient, outcome, code, mxHost, reason }) => ({ recipient, outcome, code, mxHost, reason }))).toEqual(
      recipients.map((recipient) => ({ recipient, outcome: "delivered", code: 250, mxHost: "127.0.0.1", reason: null })),
    );
    expect(relay.received.map(({ recipients, secure, authenticatedUser }) => ({ recipients, secure, authenticatedUser }))).toEqual([
      { recipients, secure: true, authenticatedUser: credentials.user },
    ]);
    const client = result.transcript.entries.filter((entry) => entry.from === "client").map((entry) => entry.text);
    expect(client.slice(0, 4)).toEqual(["EHLO out.sender.test", "STARTTLS", "EHLO out.sender.test", "AUTH PLAIN [credentials redacted]"]);
    for (const secret of [credentials.user, credentials.pass, Buffer.from(credentials.pass).toString("base64"), Buffer.from(`\0${credentials.user}\0${credentials.pass}`).toString("base64")]) {
      expect(everything(result)).not.toContain(secret);
    }
  });

  test("AUTH LOGIN sends the user name and password as separate lines: both are redacted", async () => {
    const loginOnly = await SmtpReceiver.start({ hostName: "relay.test", credentials, authMethods: ["LOGIN"] });
    try {
      const result = await send(relayUrl(loginOnly));
      expect(result.recipients.map((recipient) => recipient.outcome)).toEqual(["delivered", "delivered"]);
      const client = result.transcript.entries.filter((entry) => entry.from === "client").map((entry) => entry.text);
      expect(client.slice(3, 6)).toEqual(["AUTH LOGIN", "[credentials redacted]", "[credentials redacted]"]);
      expect(everything(result)).not.toContain(Buffer.from(credentials.user).toString("base64"));
      expect(everything(result)).not.toContain(Buffer.from(credentials.pass).toString("base64"));
    } finally {
      await loginOnly.close();
    }
  });

  test("wrong credentials defer (our configuration is wrong, not the recipient)", async () => {
    const result = await send(relayUrl(relay, "wrong"));
    expect(result.recipients.map(({ outcome, reason }) => ({ outcome, reason }))).toEqual([
      { outcome: "deferred", reason: "auth_failed" },
      { outcome: "deferred", reason: "auth_failed" },
    ]);
    expect(result.recipients[0]!.text).toContain("535 5.7.8 Authentication credentials invalid");
  });

  test("STARTTLS is required unless the URL says otherwise: a relay without it is not sent to", async () => {
    const plain = await SmtpReceiver.start({ hostName: "relay.test", startTls: false });
    try {
      const refused = await send(relayUrl(plain, credentials.pass, ""));
      expect(refused.recipients.map(({ outcome, reason }) => ({ outcome, reason }))).toEqual([
        { outcome: "deferred", reason: "tls_failed" },
        { outcome: "deferred", reason: "tls_failed" },
      ]);
      expect(plain.received).toEqual([]);
      const url = `smtp://127.0.0.1:${plain.port}?starttls=never`;
      const sent = await send(url);
      expect(sent.recipients.map((recipient) => recipient.outcome)).toEqual(["delivered", "delivered"]);
      expect(plain.received.map((received) => received.secure)).toEqual([false]);
    } finally {
      await plain.close();
    }
  });

  test("the relay's certificate is verified by default: a self-signed one is refused", async () => {
    const result = await send(relayUrl(relay, credentials.pass, ""));
    expect(result.recipients.map(({ outcome, reason }) => ({ outcome, reason }))).toEqual([
      { outcome: "deferred", reason: "tls_failed" },
      { outcome: "deferred", reason: "tls_failed" },
    ]);
    expect(result.recipients[0]!.text).toMatch(/self[- ]signed/i);
  });

  test("smtps:// speaks TLS from the first byte", async () => {
    const implicit = await SmtpReceiver.start({ hostName: "relay.test", implicitTls: true, credentials });
    try {
      const result = await send(relayUrl(implicit, credentials.pass, "?verify_certificate=false", "smtps"));
      expect({ outcomes: result.recipients.map((recipient) => recipient.outcome), tls: result.tls }).toEqual({ outcomes: ["delivered", "delivered"], tls: true });
      expect(result.transcript.entries.filter((entry) => entry.from === "client").map((entry) => entry.text)).not.toContain("STARTTLS");
      expect(implicit.received.map((received) => received.secure)).toEqual([true]);
    } finally {
      await implicit.close();
    }
  });
});

describe("parseRelayUrl", () => {
  test("defaults and options", () => {
    expect([
      parseRelayUrl("smtp://user:p%40ss@relay.example.test"),
      parseRelayUrl("smtps://relay.example.test:2465?verify_certificate=false"),
      parseRelayUrl("smtp://[::1]:2525?starttls=opportunistic"),
    ]).toEqual([
      { host: "relay.example.test", port: 587, implicitTls: false, startTls: "required", verifyCertificate: true, credentials: { user: "user", pass: "p@ss" } },
      { host: "relay.example.test", port: 2465, implicitTls: true, startTls: "never", verifyCertificate: false, credentials: null },
      { host: "::1", port: 2525, implicitTls: false, startTls: "opportunistic", verifyCertificate: true, credentials: null },
    ]);
  });

  test("refuses what it does not understand", () => {
    const refusal = (url: string) => {
      try {
        parseRelayUrl(url);
        return "accepted";
      } catch (error) {
        return error instanceof RelayUrlError ? error.message : String(error);
      }
    };
    expect(
      ["not a url", "http://relay.test", "smtp://relay.test?starttls=maybe", "smtp://relay.test?tls=off", "smtps://relay.test?starttls=never", "smtp://relay.test?verify_certificate=no"].map(refusal),
    ).toEqual([
      "the relay URL is not a URL",
      "the relay URL must start with smtp:// or smtps://, not http://",
      "starttls must be one of required, opportunistic, never",
      'unknown relay URL parameter "tls"',
      "starttls does not apply to smtps://, which is TLS from the start",
      "verify_certificate must be true or false",
    ]);
  });

  test("redactRelayUrl hides the password", () => {
    expect(redactRelayUrl("smtp://user:secret@relay.test:587")).toBe("smtp://user:redacted@relay.test:587");
  });
});
