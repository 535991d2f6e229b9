// Baseline for delivered emails per second, in a process of its own as the mail service is:
// nodemailer alone sends the same emails, composed beforehand (MailComposer, not timed), straight
// to the same sink with the same number of SMTP sessions at once as a delivery pass opens
// (concurrentDeliveriesMax), one connection per email as the service opens them, STARTTLS when
// offered, each message DKIM-signed on the way by nodemailer's `dkim` option with a 2048-bit RSA
// key as the service's domains get. No queue, no store, no DNS lookup.
// Prints "sending from <ms>" as it starts and "sent <count> until <ms> cpu <us>" when the last
// is accepted (performance.timeOrigin + now; the process's CPU while sending, all threads).
import nodemailer from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer";
import { newDkimKeyPair } from "../../server/mail/domains/dkim-key.ts";
import { concurrentDeliveriesMax } from "../../server/mail/sending/delivery-queue.ts";
import { benchMailHostname } from "./bench-routes.ts";
import { sendBodies, senderDomain } from "./requests.ts";

const sinkPort = Number(process.env.BENCH_SINK_PORT);
const seed = Number(process.env.BENCH_SEED);
const count = Number(process.env.BENCH_EMAILS);
const envelopeFrom = `bounces@${senderDomain}`;

const key = await newDkimKeyPair();
const transport = nodemailer.createTransport({
  host: "127.0.0.1",
  port: sinkPort,
  secure: false,
  name: benchMailHostname,
  tls: { rejectUnauthorized: false },
  dkim: { domainName: senderDomain, keySelector: "bench", privateKey: key.privateKeyPem },
});
const messages = await Promise.all(
  sendBodies(seed, count).map(async (body) => ({
    to: body.to,
    raw: await new MailComposer({ from: body.from, to: body.to, subject: body.subject, html: body.html, headers: { "X-Tag-Category": body.tags[0]!.value } }).compile().build(),
  })),
);

const now = () => performance.timeOrigin + performance.now();
const cpuBefore = process.cpuUsage();
console.log(`sending from ${now()}`);
let next = 0;
await Promise.all(
  Array.from({ length: concurrentDeliveriesMax }, async () => {
    for (let at = next++; at < messages.length; at = next++) {
      const { to, raw } = messages[at]!;
      const info = await transport.sendMail({ envelope: { from: envelopeFrom, to }, raw });
      if (info.rejected.length > 0) throw new Error(`the sink refused ${info.rejected.join(", ")}`);
    }
  }),
);
const cpu = process.cpuUsage(cpuBefore);
console.log(`sent ${messages.length} until ${now()} cpu ${cpu.user + cpu.system}`);
transport.close();
