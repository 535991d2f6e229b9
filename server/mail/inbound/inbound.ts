// Inbound mail as one unit startMail starts: the store, the receiver and, unless MAIL_SMTP_PORT
// is `off`, the SMTP server on MAIL_SMTP_HOST:MAIL_SMTP_PORT.
import type { SQL } from "bun";
import type { promises as dns } from "node:dns";
import { readFileSync } from "node:fs";
import type { MailSettings } from "../settings.ts";
import type { DomainStore } from "../store/domains.ts";
import { EventStore } from "../store/events.ts";
import { InboundStore } from "../store/inbound.ts";
import { mailauthResolver } from "./dns-resolver.ts";
import { InboundReceiver } from "./receive.ts";
import { routesOf } from "./recipients.ts";
import type { ReportHandler } from "./report-handler.ts";
import { startInboundSmtp } from "./smtp-server.ts";

export interface Inbound {
  store: InboundStore;
  /** `{mail API}/v1/inbound/{id}/raw`. */
  rawUrl(id: string): string;
  /** The SMTP server's port; null when MAIL_SMTP_PORT is `off`. */
  smtpPort: number | null;
  close(): Promise<void>;
}

export interface InboundOptions {
  settings: MailSettings;
  sql: SQL;
  domains: DomainStore;
  newResolver: () => dns.Resolver;
  reports: ReportHandler;
  /** The mail API's base URL (PUBLIC_URL + /mail in the one process), read when a link is made. */
  apiUrl: () => string;
  now: () => number;
  log: (line: string) => void;
}

export async function startInbound(options: InboundOptions): Promise<Inbound> {
  const { settings } = options;
  const store = new InboundStore(options.sql);
  const rawUrl = (id: string) => `${options.apiUrl()}/v1/inbound/${id}/raw`;
  const receiver = new InboundReceiver({
    store,
    events: new EventStore(options.sql),
    reports: options.reports,
    newResolver: () => mailauthResolver(options.newResolver()),
    mta: settings.hostname,
    rawUrl,
    now: options.now,
    log: options.log,
  });
  const smtp =
    settings.smtpPort === null
      ? null
      : await startInboundSmtp({
          host: settings.smtpHost,
          port: settings.smtpPort,
          hostname: settings.hostname,
          tls: settings.smtpTls ? { key: readFileSync(settings.smtpTls.keyFile, "utf8"), cert: readFileSync(settings.smtpTls.certFile, "utf8") } : null,
          routesOf: (rcptTo) => routesOf(options.domains, rcptTo),
          receive: (client, routes, raw) => receiver.receive(client, routes, raw),
          log: options.log,
        });
  return { store, rawUrl, smtpPort: smtp?.port ?? null, close: async () => smtp?.close() };
}
