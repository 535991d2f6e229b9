// The connection updates a Baileys socket emits, in the sequences Baileys 7.0.0-rc14 emits them
// (Socket/socket.js: `connecting`, `qr` per code, `isNewLogin` after a scan, then a close with
// restartRequired and a new socket that opens), turned into the gateway's session events.
import { describe, expect, test } from "bun:test";
import { Boom } from "@hapi/boom";
import { DisconnectReason } from "baileys";
import { ConnectionEvents } from "../../../server/gateway/network/baileys/connection-events.ts";
import { MessageMappingError } from "../../../server/gateway/network/baileys/message-mapping.ts";

function setup(pairing: boolean, me: string | undefined = pairing ? undefined : "4915112345678:4@s.whatsapp.net") {
  const log: unknown[] = [];
  const state = { me, credsWritesPending: 0 };
  let credsStored: () => void = () => {};
  const connection = new ConnectionEvents(
    {
      qr: (code) => void log.push({ qr: code }),
      paired: (phone) => void log.push({ paired: phone, credsWritesPending: state.credsWritesPending }),
      connected: () => void log.push("connected"),
      disconnected: (reason) => void log.push({ disconnected: reason }),
    },
    {
      // While a write is pending, credsSaved waits for it, as the session's write chain does.
      credsSaved: () =>
        state.credsWritesPending === 0
          ? Promise.resolve()
          : new Promise<void>((resolve) => {
              credsStored = () => {
                state.credsWritesPending = 0;
                log.push("creds stored");
                resolve();
              };
            }),
      meId: () => state.me,
      reconnect: () => void log.push("reconnect"),
      forgetAuth: async () => void log.push("auth forgotten"),
      over: () => void log.push("over"),
    },
    pairing,
  );
  return { connection, log, state, storeCreds: () => credsStored() };
}

const closeWith = (message: string, statusCode: number) => ({ connection: "close" as const, lastDisconnect: { error: new Boom(message, { statusCode }), date: new Date() } });

describe("connection events of a Baileys session", () => {
  test("pairing: QR codes, the scan, WhatsApp's restart request, then paired (after the credentials are stored) and connected", async () => {
    const { connection, log, state, storeCreds } = setup(true);
    await connection.update({ connection: "connecting", receivedPendingNotifications: false, qr: undefined });
    await connection.update({ qr: "2@first" });
    await connection.update({ qr: "2@second" });
    state.me = "4915112345678:4@s.whatsapp.net";
    await connection.update({ isNewLogin: true, qr: undefined });
    await connection.update(closeWith("Stream Errored (restart required)", DisconnectReason.restartRequired));
    expect(connection.isOpen).toBe(false);

    await connection.update({ connection: "connecting", receivedPendingNotifications: false, qr: undefined });
    state.credsWritesPending = 1;
    const opened = connection.update({ connection: "open" });
    storeCreds();
    await opened;
    expect(connection.isOpen).toBe(true);
    await connection.update({ receivedPendingNotifications: true });

    expect(log).toEqual([{ qr: "2@first" }, { qr: "2@second" }, "reconnect", "creds stored", { paired: "+4915112345678", credsWritesPending: 0 }, "connected"]);
  });

  test("a paired session reconnecting reports connected only, however often it opens", async () => {
    const { connection, log } = setup(false);
    await connection.update({ connection: "open" });
    await connection.update(closeWith("Stream Errored (restart required)", DisconnectReason.restartRequired));
    await connection.update({ connection: "open" });
    expect(log).toEqual(["connected", "reconnect", "connected"]);
  });

  test("logged out by the phone: the auth state is forgotten before logged_out is reported, once", async () => {
    const { connection, log } = setup(false);
    await connection.update({ connection: "open" });
    await connection.update(closeWith("Connection Failure", DisconnectReason.loggedOut));
    await connection.update(closeWith("Connection Terminated", DisconnectReason.connectionClosed));
    expect(connection.isOpen).toBe(false);
    expect(log).toEqual(["connected", "over", "auth forgotten", { disconnected: { kind: "logged_out", message: "Connection Failure" } }]);
  });

  test("replaced by another connection with the same credentials", async () => {
    const { connection, log } = setup(false);
    await connection.update({ connection: "open" });
    await connection.update(closeWith("Stream Errored (conflict)", DisconnectReason.connectionReplaced));
    expect(log).toEqual(["connected", "over", { disconnected: { kind: "replaced", message: "Stream Errored (conflict)" } }]);
  });

  test("QR codes running out, a lost connection or a close without error are connection_lost", async () => {
    const qrEnded = setup(true);
    await qrEnded.connection.update({ qr: "2@only" });
    await qrEnded.connection.update(closeWith("QR refs attempts ended", DisconnectReason.timedOut));
    expect(qrEnded.log).toEqual([{ qr: "2@only" }, "over", { disconnected: { kind: "connection_lost", message: "QR refs attempts ended" } }]);

    const silent = setup(false);
    await silent.connection.update({ connection: "close" });
    expect(silent.log).toEqual(["over", { disconnected: { kind: "connection_lost", message: "connection closed" } }]);
  });

  test("after stopReporting (the gateway closes or logs out) nothing more is reported", async () => {
    const { connection, log } = setup(false);
    await connection.update({ connection: "open" });
    connection.stopReporting();
    expect(connection.isOpen).toBe(false);
    await connection.update({ qr: "2@late" });
    await connection.update(closeWith("Intentional Logout", DisconnectReason.loggedOut));
    expect(log).toEqual(["connected"]);
  });

  test("an open without a phone-number JID after pairing is an error, not a made-up number", async () => {
    const { connection, log } = setup(true, "123456789@lid");
    await expect(connection.update({ connection: "open" })).rejects.toThrow(new MessageMappingError("not a phone-number JID: 123456789@lid"));
    expect(log).toEqual([]);
  });
});
