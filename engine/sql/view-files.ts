// The files a sandboxed `events` view reads for one snapshot of a partition, all inside the
// request's scratch directory: each Parquet part hard-linked there, so a compaction that
// deletes it meanwhile cannot pull it from under the query (the scratch directory is in the
// region's directory, on the parts' file system), and each sealed segment and the unsealed
// rows written there as Parquet (DuckDB reads Arrow IPC only through an extension, and the
// sandbox loads none). Those copies are read once, so they are not compressed.
import { linkSync } from "node:fs";
import { join } from "node:path";
import { Compression, Table as WasmTable, WriterPropertiesBuilder, writeParquet } from "parquet-wasm";
import type { ChunkRef, ChunkStore } from "../chunk-store.ts";
import { propertyKind, propertySource, type ValueKind } from "../query-data.ts";
import { propertyKeys } from "../property-keys.ts";
import type { ViewFile } from "./view.ts";

async function arrowStream(ref: Exclude<ChunkRef, { kind: "part" }>): Promise<Uint8Array> {
  if (ref.kind === "buffer") return ref.ipc;
  return new Uint8Array(await Bun.file(ref.path).slice(ref.offset, ref.offset + ref.bytes).arrayBuffer());
}

/** Fails with code ENOENT when a file of the snapshot is gone already (take a new snapshot). */
export async function viewFiles(chunks: ChunkRef[], store: ChunkStore, scratchDir: string): Promise<ViewFile[]> {
  const files: ViewFile[] = [];
  for (const [at, ref] of chunks.entries()) {
    const path = join(scratchDir, `${ref.kind}-${at}.parquet`);
    if (ref.kind === "part") {
      linkSync(ref.path, path);
      files.push({ path, schema: await store.schema({ ...ref, path }) });
      continue;
    }
    // writeParquet takes ownership of its properties, so each file gets its own.
    const properties = new WriterPropertiesBuilder().setCompression(Compression.UNCOMPRESSED).build();
    await Bun.write(path, writeParquet(WasmTable.fromIPCStream(await arrowStream(ref)), properties));
    files.push({ path, schema: await store.schema(ref) });
  }
  return files;
}

/** Every property key with a column in some file, typed as the executor types it, by key. */
export function viewProperties(files: ViewFile[]): Map<string, ValueKind> {
  const keys = [...new Set(files.flatMap((file) => propertyKeys(file.schema)))].sort();
  return new Map(keys.map((key) => [key, propertyKind(files.map((file) => propertySource(file.schema, key)))]));
}
