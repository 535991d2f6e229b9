// A tenant's webhook receiver for tests: a real HTTP server on loopback that verifies EVERY
// request with both the `svix` and the `standardwebhooks` libraries (as integrators would) and
// answers as the test scripts it: 200, a 500, no answer at all (a hang, so the mail service
// times out), a redirect, or a 500 with a 4 MiB body. Requests whose signature does not verify are answered 401 and counted.
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";

export type ReceiverAnswer = "ok" | "fail" | "hang" | "redirect" | "huge";

export interface ReceivedWebhook {
  id: string;
  timestamp: number;
  body: { type: string; created_at: string; data: Record<string, unknown> };
  answer: ReceiverAnswer;
}

export class WebhookReceiver {
  /** The secret the next requests are verified with (set once the endpoint is made). */
  secret = "";
  /** Answers for the next requests, in order; "ok" once they are used up. */
  readonly script: ReceiverAnswer[] = [];
  /** Every request whose signature verified, whatever it was answered. */
  readonly received: ReceivedWebhook[] = [];
  badSignatures = 0;
  private readonly hanging: (() => void)[] = [];
  private readonly server: ReturnType<typeof Bun.serve>;

  readonly url: string;

  constructor(path = "/hooks") {
    this.server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => this.answer(request) });
    this.url = `http://127.0.0.1:${this.server.port}${path}`;
  }

  /** The event types received, in order. */
  types(): string[] {
    return this.received.map((entry) => entry.body.type);
  }

  close(): void {
    for (const release of this.hanging) release();
    this.server.stop(true);
  }

  private async answer(request: Request): Promise<Response> {
    const body = await request.text();
    const headers = Object.fromEntries(request.headers);
    let verified: ReceivedWebhook["body"];
    try {
      verified = new SvixWebhook(this.secret).verify(body, headers) as ReceivedWebhook["body"];
      new StandardWebhook(this.secret).verify(body, headers);
    } catch {
      this.badSignatures += 1;
      return new Response("bad signature", { status: 401 });
    }
    const answer = this.script.shift() ?? "ok";
    this.received.push({ id: headers["webhook-id"]!, timestamp: Number(headers["webhook-timestamp"]), body: verified, answer });
    if (answer === "fail") return new Response("receiver down\r\n<b>try later</b>", { status: 500 });
    if (answer === "redirect") return new Response(null, { status: 307, headers: { location: this.url } });
    if (answer === "huge") return new Response("<".repeat(4 * 1_048_576), { status: 500 });
    if (answer === "hang") return new Promise<Response>((resolve) => this.hanging.push(() => resolve(new Response("late", { status: 504 }))));
    return new Response("ok", { status: 200 });
  }
}
