// Picks the control plane's mail transport from its settings.
import { MailApiTransport } from "./mail-api-transport.ts";
import { OutboxTransport } from "./outbox-transport.ts";
import type { MailTransport } from "./outgoing-mail.ts";
import type { ControlMailSettings } from "./settings.ts";

/** `ownMailApiUrl`: where this process serves its mail API, used when CONTROL_MAIL_API_URL is unset. */
export function openMailTransport(settings: ControlMailSettings, outboxPath: string, ownMailApiUrl: () => string): MailTransport {
  const outbox = new OutboxTransport(outboxPath);
  if (settings.transport === "outbox") return outbox;
  const { apiUrl } = settings;
  return new MailApiTransport({ apiUrl: apiUrl ? () => apiUrl : ownMailApiUrl, apiKey: settings.apiKey, from: settings.from, outbox });
}
