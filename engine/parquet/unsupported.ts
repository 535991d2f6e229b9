// What the Parquet reader refuses: anything outside the files storage writes (other physical
// or logical types, nesting, encodings, codecs) or a file that is not well formed. Callers
// read such a part through parquet-wasm instead (engine/parquet-parts.ts).
export class ParquetUnsupportedError extends Error {
  override readonly name = "ParquetUnsupportedError";
}
