// The mail API alone in its process (SERVICES=mail): served at the root of its own port, with
// its inbound SMTP server, so it can run on its own machine (the control plane then reaches it
// through CONTROL_MAIL_API_URL). Several such processes share MAIL_DATABASE_URL (PostgreSQL):
// the queue's leases and the webhook worker's keep each recipient and delivery with one of them.
import type { Config } from "../config.ts";
import { startMail, type RunningMail } from "./mail.ts";

export interface StandaloneMail {
  url: string;
  mail: RunningMail;
  stop(): Promise<void>;
}

export async function serveMailAlone(config: Config): Promise<StandaloneMail> {
  let url = "";
  const mail = await startMail(config.mail, config.dataDir, "", { apiUrl: () => config.publicUrl ?? url });
  const server = Bun.serve({ port: config.port, hostname: config.host, fetch: (request) => mail.handle(request) });
  url = `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${server.port}`;
  return {
    url,
    mail,
    stop: async () => {
      await server.stop();
      await mail.close();
    },
  };
}
