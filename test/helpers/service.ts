// Starts the real service on port 0 with a fresh temporary DATA_DIR.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../server/config.ts";
import { startService, type RunningService } from "../../server/service.ts";
import { lastOutboxMail, outboxMail, type OutboxMail } from "./outbox.ts";

export type { OutboxMail } from "./outbox.ts";

export interface TestService extends RunningService {
  dataDir: string;
  /** Mail the outbox has written so far (the stand-in for the mail service). */
  mail(): OutboxMail[];
  /** The newest mail of this kind to this address; throws if there is none. */
  lastMail(to: string, kind: OutboxMail["kind"]): OutboxMail;
  close(): Promise<void>;
  /** Stops and starts again on the same DATA_DIR (a new port). */
  restart(): Promise<TestService>;
}

/** `dataDir` reuses an existing data directory (a restart); otherwise a fresh one is made. */
export async function startTestService(env: Record<string, string> = {}, options: { dataDir?: string } = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "svc-test-"));
  // MAIL_SMTP_PORT 0: the inbound SMTP server on a free port, so services started in parallel never collide.
  const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, MAIL_SMTP_PORT: "0", ...env });
  const service = await startService(config);
  return {
    ...service,
    dataDir,
    mail: () => outboxMail(dataDir),
    lastMail: (to, kind) => lastOutboxMail(dataDir, to, kind),
    async close() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
    async restart() {
      await service.stop();
      return startTestService(env, { dataDir });
    },
  };
}
