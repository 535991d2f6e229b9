// Every SMTP attempt for one recipient domain of one email: who answered, over TLS or not, each
// recipient's result, and the whole conversation (bounded, credentials redacted, no body).
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";
import type { DeliveryResult } from "../delivery/smtp-delivery.ts";

export interface StoredAttempt {
  id: string;
  emailId: string;
  domain: string;
  startedAt: number;
  durationMs: number;
  results: DeliveryResult["recipients"];
  transcript: DeliveryResult["transcript"];
  tls: boolean;
  answeredBy: DeliveryResult["answeredBy"];
}

export class AttemptStore {
  constructor(private readonly sql: SQL) {}

  async record(emailId: string, domain: string, result: DeliveryResult): Promise<void> {
    await this.sql`
      INSERT INTO mail_attempts (id, email_id, domain, started_at, duration_ms, results, transcript, tls, answered_by)
      VALUES (${`att_${crypto.randomUUID().replaceAll("-", "")}`}, ${emailId}, ${domain}, ${Date.parse(result.startedAt)}, ${Math.round(result.durationMs)},
        ${JSON.stringify(result.recipients)}, ${JSON.stringify(result.transcript)}, ${result.tls ? 1 : 0}, ${result.answeredBy === null ? null : JSON.stringify(result.answeredBy)})`;
  }

  async ofEmail(emailId: string): Promise<StoredAttempt[]> {
    const rows = (await this.sql`SELECT * FROM mail_attempts WHERE email_id = ${emailId} ORDER BY started_at, id`) as Record<string, unknown>[];
    return rows.map((row) => ({
      id: String(row.id),
      emailId: String(row.email_id),
      domain: String(row.domain),
      startedAt: time(row.started_at as number)!,
      durationMs: Number(row.duration_ms),
      results: JSON.parse(String(row.results)),
      transcript: JSON.parse(String(row.transcript)),
      tls: Number(row.tls) === 1,
      answeredBy: row.answered_by === null ? null : JSON.parse(String(row.answered_by)),
    }));
  }
}
