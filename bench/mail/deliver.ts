// Delivered emails per second: the emails the service accepted wait in its queue behind the
// gate (mail-process.ts); the driver opens it and runs delivery passes (deliverQueued, one after
// the other, no sleeping) until no recipient waits. Timed from opening the gate (the first pass
// going on) until the pass that settled the last recipient returned. Then the sink must hold
// every email once, each DKIM-signed, and the store every recipient delivered.
import { processMs } from "../process-usage.ts";
import type { SinkCounts } from "./sink-process.ts";
import { deliverPath, releasePath, type DeliverAnswer } from "./bench-routes.ts";

export interface DeliveryFigures {
  emailsPerSecond: number;
  seconds: number;
  /** Mail service CPU (all threads) per delivered email. */
  cpuUsPerEmail: number;
  sink: SinkCounts;
}

export async function sinkCounts(sinkUrl: string, path: "/counts" | "/reset" = "/counts"): Promise<SinkCounts> {
  const response = await fetch(sinkUrl + path, { method: path === "/reset" ? "POST" : "GET" });
  if (!response.ok) throw new Error(`the sink's ${path} answered ${response.status}`);
  return (await response.json()) as SinkCounts;
}

async function post<T>(url: string): Promise<T> {
  const response = await fetch(url, { method: "POST" });
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  return (response.status === 204 ? null : await response.json()) as T;
}

/** Every one of `emails` (one recipient each) arrived at the sink once, signed, and the store has each delivered. */
export function checkDelivered(sink: SinkCounts, store: DeliverAnswer, emails: number): void {
  const problems = [
    sink.messages !== emails && `the sink received ${sink.messages} messages for ${emails} emails`,
    sink.distinctMessageIds !== emails && `the sink received ${sink.distinctMessageIds} distinct Message-IDs for ${emails} emails`,
    sink.signed !== sink.messages && `${sink.messages - sink.signed} messages arrived without a DKIM-Signature first`,
    store.delivered !== emails && `the store has ${store.delivered} recipients delivered for ${emails} emails`,
    store.waiting !== 0 && `${store.waiting} recipients still wait`,
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`delivery: ${problems.join("; ")}`);
}

export async function measureDelivery(mail: { url: string; pid: number }, sinkUrl: string, emails: number): Promise<DeliveryFigures> {
  await sinkCounts(sinkUrl, "/reset");
  const cpuBefore = processMs(mail.pid);
  const started = performance.now();
  await post(mail.url + releasePath);
  let answer: DeliverAnswer;
  do {
    answer = await post<DeliverAnswer>(mail.url + deliverPath);
    if (answer.settled === 0 && answer.waiting > 0) throw new Error(`a delivery pass settled nobody while ${answer.waiting} recipients wait (deferred?)`);
  } while (answer.waiting > 0);
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = processMs(mail.pid) - cpuBefore;
  const sink = await sinkCounts(sinkUrl);
  checkDelivered(sink, answer, emails);
  return { emailsPerSecond: emails / seconds, seconds, cpuUsPerEmail: (cpuMs * 1000) / emails, sink };
}
