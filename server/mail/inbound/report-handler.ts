// What the inbound server does with a report arriving at a return path (`*@bounces.{domain}`):
// a DSN (or a plain-text bounce) goes to `bounce`, an ARF complaint to `complaint`. The handler
// that matches the email and suppresses the address is given to startMail (`reports`); until
// then reports are only logged.
import type { ComplaintReport } from "../bounces/arf.ts";
import type { DeliveryStatusReport } from "../bounces/dsn.ts";
import { oneLine } from "../bounces/text.ts";

export interface ReportInput<Report> {
  tenantId: string;
  /** The domain whose return path received the report. */
  domainId: string;
  /** The envelope recipient, `bounce+{email id}@bounces.{domain}` for our own mail (emailIdFromReturnPath reads it). */
  rcptTo: string;
  report: Report;
}

export interface ReportHandler {
  bounce(input: ReportInput<DeliveryStatusReport>): Promise<void>;
  complaint(input: ReportInput<ComplaintReport>): Promise<void>;
}

/** Most characters of a report address in a log line. */
const loggedAddressCharsMax = 254;

export const loggingReportHandler = (log: (line: string) => void): ReportHandler => ({
  async bounce({ tenantId, rcptTo, report }) {
    log(`mail: bounce report for tenant ${tenantId} at ${oneLine(rcptTo, loggedAddressCharsMax)}: ${report.recipients.length} recipient(s), not handled`);
  },
  async complaint({ tenantId, rcptTo, report }) {
    log(`mail: complaint (${report.feedbackType}) for tenant ${tenantId} at ${oneLine(rcptTo, loggedAddressCharsMax)}, not handled`);
  },
});
