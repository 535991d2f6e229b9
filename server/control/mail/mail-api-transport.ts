// Sends the control plane's mail through the transactional-mail API (POST {mail_api_url}/v1/emails).
// `send` returns at once; the POST happens in the background, so a slow or absent mail API never
// holds an HTTP answer. Nothing is lost: an attempt that fails for a reason that may pass (no
// answer, a time-out, 408, 409, 425, 429, 5xx) is tried again after a back-off, with the same
// Idempotency-Key (`control-mail-{token id}`), so a retry of a send the API did take is answered
// from its idempotency record instead of sending twice. When the attempts run out, when the API
// refuses for good (another 4xx: a wrong key, an unverified from domain, an address it will not
// take), or when the process stops, the message is written to the outbox file with a warning.
import type { OutboxTransport } from "./outbox-transport.ts";
import type { MailTransport, OutgoingMail } from "./outgoing-mail.ts";

/** How long one POST may take before it counts as failed (and is tried again). */
export const mailApiAttemptTimeoutMs = 10_000;
/** The waits before the second, third and fourth attempts; after the last, the outbox. */
export const mailApiRetryDelaysMs: readonly number[] = [1_000, 5_000, 30_000];
/** How much of an error answer is logged. */
const loggedErrorCharactersMax = 300;

const retriedStatuses = new Set([408, 409, 425, 429]);
const isRetried = (status: number) => status >= 500 || retriedStatuses.has(status);

export const idempotencyKeyOf = (mail: OutgoingMail) => `control-mail-${mail.id}`;

export interface MailApiTransportOptions {
  /** The mail API's base URL (`mail_api_url`, without `/v1`); asked at each send, since the process's own is known only once it listens. */
  apiUrl: () => string;
  apiKey: string;
  /** "Name <address>" on a verified domain of the key's tenant. */
  from: string;
  outbox: OutboxTransport;
  log?: (line: string) => void;
  attemptTimeoutMs?: number;
  retryDelaysMs?: readonly number[];
  /** Resolves after `ms`, or rejects when `signal` aborts (tests record the delays instead). */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
}

type Attempt = { sent: true; id: string } | { sent: false; retry: boolean; reason: string };

function abortableWait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function parsedId(body: string): string | null {
  try {
    const { id } = JSON.parse(body) as { id?: unknown };
    return typeof id === "string" ? id : null;
  } catch {
    return null;
  }
}

const bounded = (value: string) => value.replace(/\s+/g, " ").slice(0, loggedErrorCharactersMax);

export class MailApiTransport implements MailTransport {
  private readonly pending = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private readonly log: (line: string) => void;
  private readonly attemptTimeoutMs: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly wait: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly options: MailApiTransportOptions) {
    this.log = options.log ?? ((line) => console.error(line));
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? mailApiAttemptTimeoutMs;
    this.retryDelaysMs = options.retryDelaysMs ?? mailApiRetryDelaysMs;
    this.wait = options.wait ?? abortableWait;
  }

  send(mail: OutgoingMail): void {
    if (this.stopping.signal.aborted) {
      this.fallBack(mail, "the control plane is stopping");
      return;
    }
    const job = this.deliver(mail)
      // Only the outbox file can fail here (a full disk): said loudly, since the message is then lost.
      .catch((error: Error) => this.log(`control mail: error: ${mail.kind} for ${mail.to} could be neither sent nor written to the outbox: ${error.message}`))
      .finally(() => this.pending.delete(job));
    this.pending.add(job);
  }

  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  async close(): Promise<void> {
    this.stopping.abort(new Error("the control plane is stopping"));
    await this.settled();
  }

  private async deliver(mail: OutgoingMail): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const result = await this.attempt(mail);
      if (result.sent) {
        this.log(`control mail: ${mail.kind} for ${mail.to} queued by the mail API as ${result.id}`);
        return;
      }
      const delayMs = this.retryDelaysMs[attempt];
      if (!result.retry || delayMs === undefined) return this.fallBack(mail, result.reason);
      if (this.stopping.signal.aborted) return this.fallBack(mail, `${result.reason}; the control plane stopped`);
      this.log(`control mail: ${mail.kind} for ${mail.to} not taken (${result.reason}); trying again`);
      try {
        await this.wait(delayMs, this.stopping.signal);
      } catch {
        return this.fallBack(mail, `${result.reason}; the control plane stopped before the next attempt`);
      }
    }
  }

  private async attempt(mail: OutgoingMail): Promise<Attempt> {
    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(this.attemptTimeoutMs)]);
    try {
      const response = await fetch(`${this.options.apiUrl()}/v1/emails`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.options.apiKey}`,
          "content-type": "application/json",
          "idempotency-key": idempotencyKeyOf(mail),
        },
        body: JSON.stringify({
          from: this.options.from,
          to: [mail.to],
          subject: mail.subject,
          html: mail.html,
          text: mail.text,
          tags: [{ name: "kind", value: mail.kind }],
        }),
        signal,
      });
      const body = await response.text();
      if (response.status === 200) {
        const id = parsedId(body);
        return { sent: true, id: id === null ? "(no id in the answer)" : bounded(id) };
      }
      return { sent: false, retry: isRetried(response.status), reason: `the mail API answered ${response.status}: ${bounded(body)}` };
    } catch (error) {
      if (this.stopping.signal.aborted) return { sent: false, retry: false, reason: "the control plane stopped during the attempt" };
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      const reason = timedOut ? `no answer within ${this.attemptTimeoutMs} ms` : `the mail API could not be reached: ${bounded(String(error))}`;
      return { sent: false, retry: true, reason };
    }
  }

  private fallBack(mail: OutgoingMail, reason: string): void {
    this.log(`control mail: warning: ${mail.kind} for ${mail.to} was not sent through the mail API (${reason}); written to the outbox instead`);
    this.options.outbox.write(mail, reason);
  }
}
