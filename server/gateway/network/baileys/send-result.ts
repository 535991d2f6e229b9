// What a failed Baileys send means for the gateway's retry: transient (try again later) or
// permanent. Baileys throws Boom errors whose status mirrors the connection's state; anything
// else thrown during a send comes from the transport (media upload, socket) and is transient.
import type { SendResult } from "../network.ts";
import { MessageMappingError } from "./message-mapping.ts";

/** Statuses that say "not now": timeout/lost (408), closed (428), rate limited (429), replaced (440). */
const transientStatuses = new Set([408, 428, 429, 440]);
export const sendReasonCharsMax = 500;

export function sendFailure(error: unknown): Extract<SendResult, { ok: false }> {
  const message = error instanceof Error ? error.message : String(error);
  const reason = message.length > sendReasonCharsMax ? `${message.slice(0, sendReasonCharsMax)}…` : message;
  if (error instanceof MessageMappingError) return { ok: false, transient: false, reason };
  const status = boomStatus(error);
  if (status === null) return { ok: false, transient: true, reason };
  return { ok: false, transient: transientStatuses.has(status) || status >= 500, reason: `${reason} (status ${status})` };
}

/** Boom errors (from @hapi/boom, Baileys' error type) carry `isBoom` and `output.statusCode`. */
function boomStatus(error: unknown): number | null {
  if (!error || typeof error !== "object" || !("isBoom" in error) || error.isBoom !== true) return null;
  const status = (error as { output?: { statusCode?: unknown } }).output?.statusCode;
  return typeof status === "number" ? status : null;
}
