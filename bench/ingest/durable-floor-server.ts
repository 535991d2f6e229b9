// The durable floor: a bare Bun server that parses each body as the ceiling does and also makes
// it durable before answering: its bytes appended to one log file, with one writev and one
// fdatasync for all the requests that arrive while the previous sync runs (group commit, as the
// service's WAL does). It validates and stores nothing else: the rate of a server whose only
// work besides parsing is to acknowledge nothing that is not persisted, with the same driver on
// the same machine, for comparison with durable ingest, which does that and everything else.
// It takes event batches (`batch`, bench/ingest) and replay chunks (`chunks`, bench/replay) alike.
import { mkdtempSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterWritten, writevBuffersMax } from "../../storage/atomic-file.ts";

const dataDir = process.env.DATA_DIR ?? mkdtempSync(join(tmpdir(), "durable-floor-"));
const log = await open(join(dataDir, "log"), "a");

interface PendingAppend {
  bytes: Uint8Array;
  done: (error?: Error) => void;
}

let pending: PendingAppend[] = [];
let syncing = false;

/** Writes the buffers in order, resuming after a partial write (as atomic-file.ts's writeAll does, asynchronously). */
async function writeAll(buffers: Uint8Array[]): Promise<void> {
  let rest = buffers;
  while (rest.length > 0) rest = afterWritten(rest, (await log.writev(rest.slice(0, writevBuffersMax))).bytesWritten);
}

async function commitPending(): Promise<void> {
  syncing = true;
  while (pending.length > 0) {
    const group = pending;
    pending = [];
    try {
      await writeAll(group.map((append) => append.bytes));
      await log.datasync();
      for (const append of group) append.done();
    } catch (error) {
      for (const append of group) append.done(error as Error);
    }
  }
  syncing = false;
}

const append = (bytes: Uint8Array) =>
  new Promise<void>((resolve, reject) => {
    pending.push({ bytes, done: (error) => (error ? reject(error) : resolve()) });
    if (!syncing) void commitPending();
  });

const decoder = new TextDecoder();
const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  async fetch(request) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    const body = JSON.parse(decoder.decode(bytes)) as { batch?: unknown[]; chunks?: unknown[] };
    try {
      await append(bytes);
    } catch (error) {
      return Response.json({ error: (error as Error).message }, { status: 503 });
    }
    return Response.json({ accepted: (body.batch ?? body.chunks ?? []).length, rejected: [], quota_limited: [] });
  },
});
console.log(`listening on http://127.0.0.1:${server.port} `);
