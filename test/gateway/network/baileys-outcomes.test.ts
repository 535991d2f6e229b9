// How Baileys' errors are read: a failed send (retry or not) and the end of a socket (report what,
// forget the credentials or not), with the Boom errors Baileys itself throws.
import { describe, expect, test } from "bun:test";
import { Boom } from "@hapi/boom";
import { DisconnectReason } from "baileys";
import { socketEnd } from "../../../server/gateway/network/baileys/disconnect-reason.ts";
import { MessageMappingError } from "../../../server/gateway/network/baileys/message-mapping.ts";
import { sendFailure, sendReasonCharsMax } from "../../../server/gateway/network/baileys/send-result.ts";

describe("send failures", () => {
  test("connection states and rate limits are transient", () => {
    expect(sendFailure(new Boom("Connection Closed", { statusCode: DisconnectReason.connectionClosed }))).toEqual({ ok: false, transient: true, reason: "Connection Closed (status 428)" });
    expect(sendFailure(new Boom("Timed Out", { statusCode: DisconnectReason.timedOut }))).toEqual({ ok: false, transient: true, reason: "Timed Out (status 408)" });
    expect(sendFailure(new Boom("rate-overlimit", { statusCode: 429 }))).toEqual({ ok: false, transient: true, reason: "rate-overlimit (status 429)" });
    expect(sendFailure(new Boom("Stream Errored (conflict)", { statusCode: DisconnectReason.connectionReplaced }))).toEqual({ ok: false, transient: true, reason: "Stream Errored (conflict) (status 440)" });
    expect(sendFailure(new Boom("internal", { statusCode: 500 }))).toEqual({ ok: false, transient: true, reason: "internal (status 500)" });
    expect(sendFailure(new Boom("Service Unavailable", { statusCode: DisconnectReason.unavailableService }))).toEqual({ ok: false, transient: true, reason: "Service Unavailable (status 503)" });
  });

  test("refusals are permanent", () => {
    expect(sendFailure(new Boom("not-authorized", { statusCode: 401 }))).toEqual({ ok: false, transient: false, reason: "not-authorized (status 401)" });
    expect(sendFailure(new Boom("forbidden", { statusCode: DisconnectReason.forbidden }))).toEqual({ ok: false, transient: false, reason: "forbidden (status 403)" });
    expect(sendFailure(new Boom("item-not-found", { statusCode: 404 }))).toEqual({ ok: false, transient: false, reason: "item-not-found (status 404)" });
    expect(sendFailure(new MessageMappingError("group messages are not supported"))).toEqual({ ok: false, transient: false, reason: "group messages are not supported" });
  });

  test("transport errors without a status are transient; the reason is bounded", () => {
    expect(sendFailure(new TypeError("fetch failed"))).toEqual({ ok: false, transient: true, reason: "fetch failed" });
    expect(sendFailure("socket hang up")).toEqual({ ok: false, transient: true, reason: "socket hang up" });
    expect(sendFailure(new Error("x".repeat(10_000)))).toEqual({ ok: false, transient: true, reason: `${"x".repeat(sendReasonCharsMax)}…` });
    // Something that only looks like a Boom is read as one only with a numeric status.
    expect(sendFailure(Object.assign(new Error("odd"), { isBoom: true, output: { statusCode: "400" } }))).toEqual({ ok: false, transient: true, reason: "odd" });
  });
});

describe("the end of a socket", () => {
  test("restart required (after a QR scan) reconnects without a report", () => {
    expect(socketEnd(new Boom("Stream Errored (restart required)", { statusCode: DisconnectReason.restartRequired }))).toEqual({ action: "reconnect" });
  });

  test("logged out voids the credentials", () => {
    expect(socketEnd(new Boom("Intentional Logout", { statusCode: DisconnectReason.loggedOut }))).toEqual({
      action: "report",
      reason: { kind: "logged_out", message: "Intentional Logout" },
      forgetAuth: true,
    });
  });

  test("replaced by another connection keeps them", () => {
    expect(socketEnd(new Boom("Stream Errored (conflict)", { statusCode: DisconnectReason.connectionReplaced }))).toEqual({
      action: "report",
      reason: { kind: "replaced", message: "Stream Errored (conflict)" },
      forgetAuth: false,
    });
  });

  test("anything else is a lost connection", () => {
    const lost = (message: string) => ({ action: "report", reason: { kind: "connection_lost", message }, forgetAuth: false }) as const;
    expect(socketEnd(new Boom("Connection Terminated", { statusCode: DisconnectReason.connectionClosed }))).toEqual(lost("Connection Terminated"));
    expect(socketEnd(new Boom("QR refs attempts ended", { statusCode: DisconnectReason.timedOut }))).toEqual(lost("QR refs attempts ended"));
    expect(socketEnd(new Boom("Connection Failure", { statusCode: DisconnectReason.badSession }))).toEqual(lost("Connection Failure"));
    expect(socketEnd(new Error("connect ECONNREFUSED 127.0.0.1:1"))).toEqual(lost("connect ECONNREFUSED 127.0.0.1:1"));
    expect(socketEnd(undefined)).toEqual(lost("connection closed"));
  });
});
