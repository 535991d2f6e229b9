// Accepted emails per second: concurrent clients POST the seeded bodies, one email per
// POST /v1/emails or 100 per POST /v1/emails/batch, until every one is answered; each answer
// means the email is durably stored (queued). Timed from the first request to the last answer,
// with the server's CPU (all threads) over the same span. The same requests go to the mail
// service and to the durable floor (floor-server.ts).
import { batchEmailsMax } from "../../server/mail/sending/send-service.ts";
import { HttpPool, postRequestBytes } from "../http-client.ts";
import { processMs } from "../process-usage.ts";
import type { SendBody } from "./requests.ts";

export interface AcceptFigures {
  emailsPerSecond: number;
  seconds: number;
  /** Server CPU (all threads) per accepted email. */
  cpuUsPerEmail: number;
  /** The ids the answers gave, one per email. */
  ids: string[];
}

export type AcceptMode = "single" | "batch";

/** The request bytes: one per email, or one per batchEmailsMax emails. */
export function acceptRequests(baseUrl: string, key: string, bodies: SendBody[], mode: AcceptMode): Uint8Array[] {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  if (mode === "single") return bodies.map((body) => postRequestBytes(new URL("/v1/emails", baseUrl), headers, JSON.stringify(body)));
  const requests: Uint8Array[] = [];
  for (let start = 0; start < bodies.length; start += batchEmailsMax) {
    requests.push(postRequestBytes(new URL("/v1/emails/batch", baseUrl), headers, JSON.stringify(bodies.slice(start, start + batchEmailsMax))));
  }
  return requests;
}

/** Sends every request, `inFlight` at a time; the ids of the emails in order, or throws at the first answer that is not 200. */
async function sendAll(pool: HttpPool, requests: Uint8Array[], inFlight: number, mode: AcceptMode): Promise<string[]> {
  const ids: string[][] = new Array(requests.length);
  let next = 0;
  const worker = async () => {
    for (let at = next++; at < requests.length; at = next++) {
      const answer = await pool.exchange(requests[at]!);
      if (answer.status !== 200) throw new Error(`the send answered ${answer.status}: ${answer.body?.slice(0, 500)}`);
      const body = JSON.parse(answer.body!);
      ids[at] = mode === "single" ? [body.id] : (body.data as { id: string }[]).map((email) => email.id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, requests.length) }, worker));
  return ids.flat();
}

export async function measureAccepts(server: { url: string; pid: number }, key: string, bodies: SendBody[], mode: AcceptMode, inFlight: number): Promise<AcceptFigures> {
  const requests = acceptRequests(server.url, key, bodies, mode);
  const pool = HttpPool.forUrl(new URL(server.url), inFlight);
  const cpuBefore = processMs(server.pid);
  const started = performance.now();
  const ids = await sendAll(pool, requests, inFlight, mode);
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = processMs(server.pid) - cpuBefore;
  pool.close();
  if (new Set(ids).size !== bodies.length) throw new Error(`${new Set(ids).size} distinct ids answered for ${bodies.length} emails`);
  return { emailsPerSecond: bodies.length / seconds, seconds, cpuUsPerEmail: (cpuMs * 1000) / bodies.length, ids };
}
