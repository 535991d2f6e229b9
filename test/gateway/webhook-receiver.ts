// A project's webhook receiver for tests: a real HTTP server that verifies each delivery's
// signature with the `standardwebhooks` library (as an integrator would) and answers as the
// test says: 204, a failure status, or no answer at all (a hang, so the gateway times out).
import { Webhook } from "standardwebhooks";

export type ReceiverMode = "ok" | "fail" | "hang";

export interface ReceivedDelivery {
  id: string;
  event: string;
  data: any;
  attempt: number;
}

export interface WebhookReceiver {
  url: string;
  mode: ReceiverMode;
  /** Deliveries answered 2xx, in the order they arrived. */
  accepted: ReceivedDelivery[];
  /** Every request, whatever its answer. */
  requests: number;
  /** Requests whose signature did not verify (answered 401). */
  badSignatures: number;
  close(): void;
}

export function startWebhookReceiver(secret: string): WebhookReceiver {
  const verifier = new Webhook(secret);
  const hanging: (() => void)[] = [];
  const receiver: WebhookReceiver = {
    url: "",
    mode: "ok",
    accepted: [],
    requests: 0,
    badSignatures: 0,
    close: () => {
      for (const release of hanging) release();
      server.stop(true);
    },
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      receiver.requests += 1;
      const body = await request.text();
      const headers = Object.fromEntries(request.headers);
      let payload: any;
      try {
        payload = verifier.verify(body, headers);
      } catch {
        receiver.badSignatures += 1;
        return new Response("bad signature", { status: 401 });
      }
      if (receiver.mode === "fail") return new Response("receiver down", { status: 500 });
      if (receiver.mode === "hang") return new Promise<Response>((resolve) => hanging.push(() => resolve(new Response("late", { status: 504 }))));
      receiver.accepted.push({ id: payload.id, event: payload.event, data: payload.data, attempt: Number(headers["webhook-attempt"]) });
      return new Response(null, { status: 204 });
    },
  });
  receiver.url = `http://127.0.0.1:${server.port}/hooks`;
  return receiver;
}
