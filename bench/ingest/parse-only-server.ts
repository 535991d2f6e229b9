// The ceiling: a bare Bun server that only reads and parses the same bodies.
const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  async fetch(request) {
    const body = JSON.parse(await request.text()) as { batch: unknown[] };
    return Response.json({ accepted: body.batch.length, rejected: [], quota_limited: [] });
  },
});
console.log(`listening on http://127.0.0.1:${server.port} `);
