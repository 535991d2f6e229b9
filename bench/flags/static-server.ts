// The baseline: a bare Bun server that reads and parses each flag request and answers a fixed,
// pre-serialised answer (a real 50-flag answer captured from the service, path in argv[2]).
// What it costs is HTTP, JSON parsing and the bytes on the wire; the gap to the service is
// evaluation and everything else the service does.
import { readFileSync } from "node:fs";

const answer = readFileSync(process.argv[2]!, "utf8");
const headers = { "content-type": "application/json" };

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  async fetch(request) {
    const body = JSON.parse(await request.text()) as { distinct_id?: unknown };
    if (typeof body.distinct_id !== "string") return new Response('{"error":"distinct_id is missing"}', { status: 400, headers });
    return new Response(answer, { headers });
  },
});
console.log(`listening on http://127.0.0.1:${server.port} `);
