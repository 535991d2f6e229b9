// One run of the benchmark: the durable floor, the mail service, the nodemailer baseline, each
// on fresh processes and data, all delivering to one sink and resolving through one DNS server.
import { TestDnsServer } from "../../test/mail/helpers/dns-server.ts";
import { rssBytes, sampleRssPeak } from "../process-usage.ts";
import { measureAccepts, type AcceptFigures } from "./accept.ts";
import { measureDelivery, sinkCounts, type DeliveryFigures } from "./deliver.ts";
import { setUpTenant } from "./mail-client.ts";
import { startFloor, startMailProcess, startNodemailerBaseline, startSink } from "./processes.ts";
import { sendBodies, type SendBody } from "./requests.ts";

export interface BenchSize {
  seed: number;
  /** Emails sent one per POST /v1/emails, then emails sent 100 per POST /v1/emails/batch; all of them are then delivered. */
  singles: number;
  batched: number;
  /** Requests in flight at once: single sends, batches. */
  singlesInFlight: number;
  batchesInFlight: number;
}

export interface MemoryFigures {
  /** The mail process's RSS once set up (a tenant, a verified domain), after accepting, after delivering; the highest read (every 250 ms). */
  setUpBytes: number;
  acceptedBytes: number;
  deliveredBytes: number;
  peakBytes: number;
}

export interface RunFigures {
  floor: { single: AcceptFigures; batch: AcceptFigures };
  mail: { single: AcceptFigures; batch: AcceptFigures; delivery: DeliveryFigures; memory: MemoryFigures };
  nodemailer: { emailsPerSecond: number; seconds: number; cpuUsPerEmail: number };
}

type Bodies = { single: SendBody[]; batch: SendBody[] };
const accepted = (figures: AcceptFigures): AcceptFigures => ({ ...figures, ids: [] });

async function measureFloor(bodies: Bodies, size: BenchSize): Promise<RunFigures["floor"]> {
  const floor = await startFloor();
  try {
    const single = await measureAccepts(floor, "unused", bodies.single, "single", size.singlesInFlight);
    const batch = await measureAccepts(floor, "unused", bodies.batch, "batch", size.batchesInFlight);
    return { single: accepted(single), batch: accepted(batch) };
  } finally {
    await floor.stop();
  }
}

async function measureMail(bodies: Bodies, size: BenchSize, dns: TestDnsServer, sink: { url: string; smtpPort: number }): Promise<RunFigures["mail"]> {
  const mail = await startMailProcess(dns.servers[0]!, sink.smtpPort);
  const peak = sampleRssPeak(mail.pid);
  try {
    const key = await setUpTenant(mail.url, dns);
    const setUpBytes = rssBytes(mail.pid);
    const single = await measureAccepts(mail, key, bodies.single, "single", size.singlesInFlight);
    const batch = await measureAccepts(mail, key, bodies.batch, "batch", size.batchesInFlight);
    const acceptedBytes = rssBytes(mail.pid);
    const delivery = await measureDelivery(mail, sink.url, bodies.single.length + bodies.batch.length);
    const memory = { setUpBytes, acceptedBytes, deliveredBytes: rssBytes(mail.pid), peakBytes: peak.bytes() };
    return { single: accepted(single), batch: accepted(batch), delivery, memory };
  } finally {
    peak.stop();
    await mail.stop();
  }
}

async function measureNodemailer(size: BenchSize, sinkUrl: string, sinkPort: number): Promise<RunFigures["nodemailer"]> {
  const emails = size.singles + size.batched;
  await sinkCounts(sinkUrl, "/reset");
  const sending = await startNodemailerBaseline({ BENCH_SINK_PORT: String(sinkPort), BENCH_SEED: String(size.seed), BENCH_EMAILS: String(emails) });
  const { endedAtMs, cpuUs } = await sending.ended;
  const code = await sending.exited;
  if (code !== 0) throw new Error(`the nodemailer baseline exited with ${code}`);
  const sink = await sinkCounts(sinkUrl);
  if (sink.messages !== emails || sink.signed !== emails) throw new Error(`the nodemailer baseline: the sink received ${sink.messages} messages (${sink.signed} signed) for ${emails}`);
  const seconds = (endedAtMs - sending.startedAtMs) / 1000;
  return { emailsPerSecond: emails / seconds, seconds, cpuUsPerEmail: cpuUs / emails };
}

export async function runOnce(size: BenchSize, progress: (line: string) => void): Promise<RunFigures> {
  const all = sendBodies(size.seed, size.singles + size.batched);
  const bodies = { single: all.slice(0, size.singles), batch: all.slice(size.singles) };
  const dns = await TestDnsServer.start();
  const sink = await startSink();
  try {
    const floor = await measureFloor(bodies, size);
    progress(`floor ${Math.round(floor.single.emailsPerSecond)}/s single, ${Math.round(floor.batch.emailsPerSecond)}/s batched`);
    const mail = await measureMail(bodies, size, dns, sink);
    progress(`mail ${Math.round(mail.single.emailsPerSecond)}/s single, ${Math.round(mail.batch.emailsPerSecond)}/s batched, delivered ${Math.round(mail.delivery.emailsPerSecond)}/s`);
    const nodemailer = await measureNodemailer(size, sink.url, sink.smtpPort);
    progress(`nodemailer ${Math.round(nodemailer.emailsPerSecond)}/s`);
    return { floor, mail, nodemailer };
  } finally {
    await sink.stop();
    await dns.close();
  }
}
