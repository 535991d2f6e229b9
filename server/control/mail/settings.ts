// How the control plane sends its own mail (environment variables, documented in the README).
// Both CONTROL_MAIL_API_KEY and CONTROL_MAIL_FROM: through the mail API; neither: the outbox
// file in DATA_DIR (the default, so a laptop needs no mail setup); one without the other is a
// mistake worth stopping for, rather than silently writing to a file nobody reads.
import { parseMailbox } from "../../mail/compose/addresses.ts";
import { ComposeError } from "../../mail/compose/errors.ts";

export type ControlMailSettings =
  | { transport: "outbox" }
  | {
      transport: "mail-api";
      apiKey: string;
      from: string;
      /** CONTROL_MAIL_API_URL without a trailing slash; null: this process's own mail API. */
      apiUrl: string | null;
    };

export class ControlMailSettingsError extends Error {}

export function parseControlMailSettings(env: Record<string, string | undefined>): ControlMailSettings {
  const apiKey = env.CONTROL_MAIL_API_KEY?.trim() || null;
  const from = env.CONTROL_MAIL_FROM?.trim() || null;
  const rawUrl = env.CONTROL_MAIL_API_URL?.trim() || null;
  if (!apiKey && !from) {
    if (rawUrl) throw new ControlMailSettingsError("CONTROL_MAIL_API_URL is set without CONTROL_MAIL_API_KEY and CONTROL_MAIL_FROM");
    return { transport: "outbox" };
  }
  if (!apiKey) throw new ControlMailSettingsError("CONTROL_MAIL_FROM is set without CONTROL_MAIL_API_KEY: set both to send through the mail API, or neither to use the outbox file");
  if (!from) throw new ControlMailSettingsError("CONTROL_MAIL_API_KEY is set without CONTROL_MAIL_FROM: set both to send through the mail API, or neither to use the outbox file");
  try {
    parseMailbox(from, "CONTROL_MAIL_FROM");
  } catch (error) {
    if (error instanceof ComposeError) throw new ControlMailSettingsError(`CONTROL_MAIL_FROM must be "Name <address>" or an address: ${error.message}`);
    throw error;
  }
  if (rawUrl && !/^https?:\/\/[^\s/]+/.test(rawUrl)) throw new ControlMailSettingsError(`CONTROL_MAIL_API_URL must be an http:// or https:// URL, got "${rawUrl.slice(0, 60)}"`);
  return { transport: "mail-api", apiKey, from, apiUrl: rawUrl ? rawUrl.replace(/\/+$/, "") : null };
}
