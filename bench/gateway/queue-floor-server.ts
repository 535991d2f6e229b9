// Baseline for queued messages per second: a bare Bun server that takes the same
// POST /v1/send body, parses it and answers 202 once the message is one row in the gateway's own
// SQLite store (same file settings, WAL, same schema and indexes, the same INSERT through the
// same client), and does nothing else: no key lookup, no validation, no dispatch.
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { gatewaySqliteFile } from "../../server/gateway/gateway.ts";
import { openGatewayDatabase } from "../../server/gateway/store/database.ts";
import { MessageStore } from "../../server/gateway/store/messages.ts";
import { ProjectStore } from "../../server/gateway/store/projects.ts";

const dataDir = process.env.BENCH_DATA_DIR ?? mkdtempSync(join(tmpdir(), "bench-gateway-floor-"));
const database = await openGatewayDatabase(join(dataDir, gatewaySqliteFile));
const projectId = "floor-project";
await new ProjectStore(database.sql).create({ id: projectId, name: "floor", webhookUrl: null, webhookSecret: "whsec_floor", now: Date.now() });
const messages = new MessageStore(database.sql);

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const body = (await request.json()) as { to: string; text: string };
    const content = JSON.stringify({ type: "text", text: body.text });
    const { message } = await messages.enqueue({
      id: Bun.randomUUIDv7(),
      projectId,
      idempotencyKey: null,
      requestHash: "",
      recipient: body.to,
      kind: "text",
      content,
      contentBytes: body.text.length,
      createdAt: Date.now(),
    });
    return Response.json({ id: message.id, state: message.state }, { status: 202 });
  },
});
process.on("SIGTERM", () => {
  server.stop(true);
  void database.close().finally(() => process.exit(0));
});
console.log(`queue floor listening on ${server.url.origin} `);
