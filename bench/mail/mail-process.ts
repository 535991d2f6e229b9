// The mail API alone in its own process, as the benchmark measures it: started the way
// test/mail/harness.ts starts it (startMail + Bun.serve on a loopback port), with its data in
// BENCH_DATA_DIR (SQLite, the default store), resolving through the driver's DNS server
// (BENCH_DNS_SERVER) and delivering to the sink's port (BENCH_SINK_PORT), with the per-key rate
// limit lifted. No inbound SMTP server: the benchmark sends only.
//
// Deliveries wait behind a gate until the driver opens it (POST /__bench/release): the queue
// starts a pass on every accepted email, so without the gate the accept figures would include
// delivering and the delivery figure would start from a half-empty queue. The gate holds the
// service's own `deliver` (server/mail/delivery/smtp-delivery.ts, passed as the `deliver`
// option): while closed, the first pass's few claimed emails wait; once open, everything runs
// as in production. POST /__bench/deliver runs RunningMail.deliverQueued() (one pass, or the end
// of the running one) and answers what it settled and how many recipients still wait.
import { deliver } from "../../server/mail/delivery/smtp-delivery.ts";
import { startMail } from "../../server/mail/mail.ts";
import { parseMailSettings } from "../../server/mail/settings.ts";
import { benchMailHostname, benchMailRootKey, deliverPath, releasePath, type DeliverAnswer } from "./bench-routes.ts";

/** Per-key requests per second and burst: high enough never to refuse the benchmark's load. */
const liftedRateLimit = "1000000000";

const settings = parseMailSettings(
  {
    MAIL_ROOT_KEY: benchMailRootKey,
    MAIL_HOSTNAME: benchMailHostname,
    MAIL_DNS_SERVERS: process.env.BENCH_DNS_SERVER,
    MAIL_DELIVERY_PORT: process.env.BENCH_SINK_PORT,
    MAIL_SMTP_PORT: "off",
    MAIL_RATE_LIMIT_BURST: liftedRateLimit,
    MAIL_RATE_LIMIT_PER_SECOND: liftedRateLimit,
  },
  null,
);
const gate = Promise.withResolvers<void>();
const mail = await startMail(settings, process.env.BENCH_DATA_DIR!, "", {
  log: (line) => console.error(line),
  deliver: async (input) => {
    await gate.promise;
    return deliver(input);
  },
});

async function recipientCounts(): Promise<Omit<DeliverAnswer, "settled">> {
  const [row] = await mail.ctx.database.sql`
    SELECT SUM(CASE WHEN status IN ('scheduled', 'queued', 'deferred') THEN 1 ELSE 0 END) AS waiting, SUM(CASE WHEN status = 'delivered' THEN 1 ELSE 0 END) AS delivered
    FROM mail_recipients`;
  return { waiting: Number(row.waiting ?? 0), delivered: Number(row.delivered ?? 0) };
}

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  // a delivery pass can take longer than Bun's default 10 s
  idleTimeout: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === releasePath) {
      gate.resolve();
      return new Response(null, { status: 204 });
    }
    if (path === deliverPath) {
      const settled = await mail.deliverQueued();
      return Response.json({ settled, ...(await recipientCounts()) } satisfies DeliverAnswer);
    }
    return mail.handle(request);
  },
});
process.on("SIGTERM", () => {
  server.stop(true);
  gate.resolve();
  void mail.close().finally(() => process.exit(0));
});
console.log(`mail listening on ${server.url.origin} `);
