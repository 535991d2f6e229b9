// A decode worker: reads the named column chunks of a part into SharedArrayBuffer-backed arrays
// (engine/parallel/arrays.ts) and posts them back; the main thread receives views of the same
// memory. A read the main thread claimed first is skipped (claims.ts). A failure is posted as
// its class name and message (decode-pool.ts raises it again).
import { readPartColumns } from "../parquet/part-columns.ts";
import { sharedArrays } from "./arrays.ts";
import { claim, claimedByWorker } from "./claims.ts";
import type { DecodeReply, WorkerMessage } from "./decode-pool.ts";

declare const self: Worker;

let claims: Int32Array | null = null;

self.onmessage = (message: MessageEvent<WorkerMessage>) => {
  const data = message.data;
  if (data.type === "claims") {
    claims = data.claims;
    return;
  }
  const { id, path, footer, names } = data;
  if (!claim(claims!, id, claimedByWorker)) return;
  let reply: DecodeReply;
  try {
    reply = { id, columns: [...readPartColumns(path, footer, names, sharedArrays)] };
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    reply = { id, error: { name: failure.name, message: failure.message } };
  }
  self.postMessage(reply);
};
