// A decode worker: reads the named column chunks of a part into SharedArrayBuffer-backed arrays
// (engine/parallel/arrays.ts) and posts them back; the main thread receives views of the same
// memory. A failure is posted as its class name and message (decode-pool.ts raises it again).
import { readPartColumns } from "../parquet/part-reader.ts";
import { sharedArrays } from "./arrays.ts";
import type { DecodeReply, DecodeRequest } from "./decode-pool.ts";

declare const self: Worker;

self.onmessage = (message: MessageEvent<DecodeRequest>) => {
  const { id, path, footer, names } = message.data;
  let reply: DecodeReply;
  try {
    reply = { id, columns: [...readPartColumns(path, footer, names, sharedArrays)] };
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    reply = { id, error: { name: failure.name, message: failure.message } };
  }
  self.postMessage(reply);
};
