// What happens to a message the inbound SMTP server accepted, before it answers 250: reports at
// a return path go to the report handler (an ARF complaint first, else a DSN or plain-text
// bounce; anything else is logged and dropped), and mail for receiving domains is parsed,
// checked (DKIM, SPF), stored once per tenant and announced as `email.received`.
import type { DNSResolver } from "mailauth";
import { parseArf } from "../bounces/arf.ts";
import { parseDsn } from "../bounces/dsn.ts";
import { oneLine } from "../bounces/text.ts";
import type { EventStore } from "../store/events.ts";
import type { InboundStore } from "../store/inbound.ts";
import { authenticateInbound, type SmtpClient } from "./authentication.ts";
import { inboundSummaryDto } from "./dto.ts";
import { parseInbound } from "./parse.ts";
import type { InboundRoute } from "./recipients.ts";
import type { ReportHandler } from "./report-handler.ts";

/** Most characters of a hostile address in a log line. */
const loggedAddressCharsMax = 254;

export interface InboundDeps {
  store: InboundStore;
  events: EventStore;
  reports: ReportHandler;
  /** A resolver for one message's checks (a fresh one: answers are not cached across messages). */
  newResolver: () => DNSResolver;
  /** Our host name (MAIL_HOSTNAME), as the receiving MTA in the checks. */
  mta: string;
  /** Where the message's bytes can be fetched: `{mail API}/v1/inbound/{id}/raw`. */
  rawUrl: (id: string) => string;
  now: () => number;
  log: (line: string) => void;
}

const newInboundId = (now: number) => `inb_${Bun.randomUUIDv7("hex", now).replaceAll("-", "")}`;

export class InboundReceiver {
  constructor(private readonly deps: InboundDeps) {}

  async receive(client: SmtpClient, routes: InboundRoute[], raw: Buffer): Promise<void> {
    const reportRoutes = routes.filter((route) => route.kind === "report");
    if (reportRoutes.length > 0) await this.report(reportRoutes, raw);
    const mailRoutes = routes.filter((route) => route.kind === "mail");
    if (mailRoutes.length > 0) await this.store(client, mailRoutes, raw);
  }

  private async report(routes: InboundRoute[], raw: Buffer): Promise<void> {
    const complaint = await parseArf(raw);
    const bounce = complaint ? null : await parseDsn(raw);
    for (const route of routes) {
      const input = { tenantId: route.tenantId, domainId: route.domainId, rcptTo: route.address };
      if (complaint) await this.deps.reports.complaint({ ...input, report: complaint });
      else if (bounce) await this.deps.reports.bounce({ ...input, report: bounce });
      else this.deps.log(`mail: a message to ${oneLine(route.address, loggedAddressCharsMax)} (tenant ${route.tenantId}) is neither a bounce nor a complaint; accepted and dropped`);
    }
  }

  private async store(client: SmtpClient, routes: InboundRoute[], raw: Buffer): Promise<void> {
    const [parsed, authentication] = await Promise.all([parseInbound(raw), authenticateInbound(raw, client, this.deps.newResolver(), this.deps.mta)]);
    const byTenant = Map.groupBy(routes, (route) => route.tenantId);
    for (const [tenantId, tenantRoutes] of byTenant) {
      const now = this.deps.now();
      const message = {
        id: newInboundId(now),
        tenantId,
        // A message to several of a tenant's domains is stored once, under the first one named.
        domainId: tenantRoutes[0]!.domainId,
        envelopeFrom: client.mailFrom,
        envelopeTo: [...new Set(tenantRoutes.map((route) => route.address))],
        ...parsed,
        ...authentication,
        sizeBytes: raw.length,
        createdAt: now,
      };
      await this.deps.store.insert({ ...message, raw });
      await this.deps.events.emit([{ tenantId, type: "email.received", domainId: message.domainId, data: inboundSummaryDto(message, this.deps.rawUrl(message.id)) }], now);
    }
  }
}
