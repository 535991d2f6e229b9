// A real loopback HTTP server between the page and the service: it forwards every request to
// the service unless `answer` answers it itself (a 503, a 429, the replay endpoint), and keeps
// what each POST carried.
import { gunzipSync } from "node:zlib";
export interface ProxiedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body as sent (maybe gzip). */
  body: Uint8Array;
  /** When it arrived, epoch ms. */
  at: number;
  /** The answer's status and text, once answered. */
  answer?: { status: number; text: string };
}

export interface IngestProxy {
  /** The ingest URL to hand the SDK: the proxy's origin and the service's ingest path. */
  ingestUrl: string;
  posts: ProxiedRequest[];
  stop(): void;
}

/** Answers a POST itself when this returns a Response; `index` counts the POSTs to that path so far (0 first). */
export type Answer = (request: ProxiedRequest, index: number) => Response | null | Promise<Response | null>;

export const proxyCors = { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": "Retry-After" };

export function startIngestProxy(serviceUrl: string, answer: Answer = () => null): IngestProxy {
  const posts: ProxiedRequest[] = [];
  const counts = new Map<string, number>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const body = new Uint8Array(await request.arrayBuffer());
      let received: ProxiedRequest | null = null;
      if (request.method === "POST") {
        received = { method: request.method, path: url.pathname, headers: Object.fromEntries(request.headers), body, at: Date.now() };
        posts.push(received);
        const index = counts.get(url.pathname) ?? 0;
        counts.set(url.pathname, index + 1);
        const own = await answer(received, index);
        if (own) {
          received.answer = { status: own.status, text: await own.clone().text() };
          return own;
        }
      }
      const headers = new Headers(request.headers);
      headers.delete("host");
      const forwarded = await fetch(`${serviceUrl}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: request.method === "GET" || request.method === "HEAD" ? undefined : body,
        decompress: false,
      });
      const answerBody = new Uint8Array(await forwarded.arrayBuffer());
      if (received) received.answer = { status: forwarded.status, text: new TextDecoder().decode(answerBody) };
      return new Response(answerBody, { status: forwarded.status, headers: forwarded.headers });
    },
  });
  return { ingestUrl: `${server.url.origin}/ingest/eu`, posts, stop: () => server.stop(true) };
}

/** A POST's JSON body, gunzipped when it is gzip. */
export function jsonOf(request: Pick<ProxiedRequest, "body">): any {
  const bytes = request.body[0] === 0x1f && request.body[1] === 0x8b ? gunzipSync(request.body) : request.body;
  return JSON.parse(new TextDecoder().decode(bytes));
}
