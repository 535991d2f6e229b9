// The mail the service has written to its outbox file (the default transport, and where mail
// the mail API did not take ends): what tests and the screenshots script read the emailed links
// and tokens from. Lines also hold `id`, `html`, `text`, `queued_at` and, for a fallback, `undelivered`.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { mailOutboxFile } from "../../server/service.ts";

export interface OutboxMail {
  to: string;
  kind: "password_reset" | "verify_email" | "invitation";
  subject: string;
  link: string;
  token: string;
}

export function outboxMail(dataDir: string): OutboxMail[] {
  const path = join(dataDir, mailOutboxFile);
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as OutboxMail);
}

/** The newest mail of this kind to this address; throws if there is none. */
export function lastOutboxMail(dataDir: string, to: string, kind: OutboxMail["kind"]): OutboxMail {
  const found = outboxMail(dataDir).filter((item) => item.to === to && item.kind === kind).at(-1);
  if (!found) throw new Error(`no ${kind} mail to ${to}`);
  return found;
}
