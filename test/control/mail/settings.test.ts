import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../../server/config.ts";
import { parseControlMailSettings } from "../../../server/control/mail/settings.ts";

const key = "mk_live_0123456789abcdef";
const from = "Analytics <noreply@send.example.com>";

describe("control mail settings", () => {
  test("neither key nor from: the outbox (the default)", () => {
    expect(parseControlMailSettings({})).toEqual({ transport: "outbox" });
    expect(parseControlMailSettings({ CONTROL_MAIL_API_KEY: " ", CONTROL_MAIL_FROM: "" })).toEqual({ transport: "outbox" });
    expect(loadConfig({}).controlMail).toEqual({ transport: "outbox" });
  });

  test("both: the mail API, this process's own unless CONTROL_MAIL_API_URL names another (trailing slashes dropped)", () => {
    expect(parseControlMailSettings({ CONTROL_MAIL_API_KEY: key, CONTROL_MAIL_FROM: from })).toEqual({ transport: "mail-api", apiKey: key, from, apiUrl: null });
    expect(parseControlMailSettings({ CONTROL_MAIL_API_KEY: key, CONTROL_MAIL_FROM: "noreply@send.example.com", CONTROL_MAIL_API_URL: "https://mail.example.com/mail//" })).toEqual({
      transport: "mail-api",
      apiKey: key,
      from: "noreply@send.example.com",
      apiUrl: "https://mail.example.com/mail",
    });
  });

  test("one without the other stops start-up naming what is missing", () => {
    expect(() => loadConfig({ CONTROL_MAIL_API_KEY: key })).toThrow(
      new ConfigError("CONTROL_MAIL_API_KEY is set without CONTROL_MAIL_FROM: set both to send through the mail API, or neither to use the outbox file"),
    );
    expect(() => loadConfig({ CONTROL_MAIL_FROM: from })).toThrow(
      new ConfigError("CONTROL_MAIL_FROM is set without CONTROL_MAIL_API_KEY: set both to send through the mail API, or neither to use the outbox file"),
    );
    expect(() => loadConfig({ CONTROL_MAIL_API_URL: "http://127.0.0.1:9/mail" })).toThrow(
      new ConfigError("CONTROL_MAIL_API_URL is set without CONTROL_MAIL_API_KEY and CONTROL_MAIL_FROM"),
    );
  });

  test("a from that is not one mailbox, or carries a line break, is refused", () => {
    for (const bad of ["Analytics", "a@b.example.com, c@d.example.com", "Analytics <noreply@send.example.com>\r\nBcc: x@evil.example", "Name <no-domain>"]) {
      expect(() => parseControlMailSettings({ CONTROL_MAIL_API_KEY: key, CONTROL_MAIL_FROM: bad })).toThrow(/^CONTROL_MAIL_FROM must be "Name <address>" or an address: /);
    }
  });

  test("CONTROL_MAIL_API_URL must be http(s)", () => {
    expect(() => parseControlMailSettings({ CONTROL_MAIL_API_KEY: key, CONTROL_MAIL_FROM: from, CONTROL_MAIL_API_URL: "ftp://mail" })).toThrow(
      'CONTROL_MAIL_API_URL must be an http:// or https:// URL, got "ftp://mail"',
    );
  });
});
