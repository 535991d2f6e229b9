// What the end of a Baileys socket means for the gateway, read from the Boom status Baileys
// closes with (its DisconnectReason codes).
import { DisconnectReason as BaileysDisconnectReason } from "baileys";
import type { DisconnectReason } from "../network.ts";

export type SocketEnd =
  /** WhatsApp asks for a new socket with the same (just updated) credentials: right after a QR scan. */
  | { action: "reconnect" }
  /** Reported to the gateway; `forgetAuth` when the credentials are void. */
  | { action: "report"; reason: DisconnectReason; forgetAuth: boolean };

export function socketEnd(error: Error | undefined): SocketEnd {
  const status = (error as { output?: { statusCode?: unknown } } | undefined)?.output?.statusCode;
  const message = error?.message || "connection closed";
  switch (status) {
    case BaileysDisconnectReason.restartRequired:
      return { action: "reconnect" };
    case BaileysDisconnectReason.loggedOut:
      return { action: "report", reason: { kind: "logged_out", message }, forgetAuth: true };
    case BaileysDisconnectReason.connectionReplaced:
      return { action: "report", reason: { kind: "replaced", message }, forgetAuth: false };
    default:
      return { action: "report", reason: { kind: "connection_lost", message }, forgetAuth: false };
  }
}
