// Baseline for accepted emails per second, the "durable floor": a bare Bun server that takes
// the same POST /v1/emails and /v1/emails/batch bodies, parses them and answers once each
// request's emails are rows in a SQLite file opened the way the mail store opens its own
// (server/sql-store/open.ts: Bun's SQL client, WAL), one INSERT statement (so one commit) per
// request, and does nothing else: no key check, no validation, no MIME message, no usage count,
// no event. What acknowledging only stored emails costs by itself.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlStore } from "../../server/sql-store/open.ts";
import type { SendBody } from "./requests.ts";

const floorMigrations = [
  ["CREATE TABLE floor_emails (id TEXT PRIMARY KEY, from_address TEXT NOT NULL, to_addresses TEXT NOT NULL, subject TEXT NOT NULL, html TEXT NOT NULL, tags TEXT NOT NULL, created_at BIGINT NOT NULL)"],
];

const dataDir = process.env.BENCH_DATA_DIR ?? mkdtempSync(join(tmpdir(), "bench-mail-floor-"));
const store = await openSqlStore(join(dataDir, "floor.sqlite"), floorMigrations, "floor_migrations");
const { sql } = store;

const row = (body: SendBody) => ({
  id: crypto.randomUUID(),
  from_address: body.from,
  to_addresses: JSON.stringify(body.to),
  subject: body.subject,
  html: body.html,
  tags: JSON.stringify(body.tags),
  created_at: Date.now(),
});

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const path = new URL(request.url).pathname;
    const body = await request.json();
    const rows = (path === "/v1/emails/batch" ? (body as SendBody[]) : [body as SendBody]).map(row);
    await sql`INSERT INTO floor_emails ${sql(rows)}`;
    const answers = rows.map((inserted) => ({ id: inserted.id, status: "queued" }));
    return Response.json(path === "/v1/emails/batch" ? { data: answers } : answers[0]);
  },
});
process.on("SIGTERM", () => {
  server.stop(true);
  void store.close().finally(() => process.exit(0));
});
console.log(`mail floor listening on ${server.url.origin} `);
