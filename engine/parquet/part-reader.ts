// Parquet parts as the ChunkStore reads them: the reader in this directory decodes the files
// storage writes straight into the executor's typed arrays (no wasm, no Arrow), reading only
// the footer and the requested column chunks; a file or column it does not support (it says
// so with ParquetUnsupportedError, before returning anything) is read through parquet-wasm
// (../parquet-parts.ts) instead. Measured on a cold revenue query over 10M events: parquet-wasm
// and the Arrow C data interface took about 490 ms and decoding their arrays 190 ms; the whole
// query went from about 1,000 ms to under 500 with this reader.
import type { ColumnType } from "../chunk-store.ts";
import { decodeColumn as decodeArrow, type Decoded } from "../columns.ts";
import { ParquetParts } from "../parquet-parts.ts";
import type { DecodePool, DecodeTask } from "../parallel/decode-pool.ts";
import { readPartColumns } from "./part-columns.ts";
import { constantNumber } from "./constant.ts";
import { readFooter, type Footer } from "./footer.ts";
import { ParquetUnsupportedError } from "./unsupported.ts";

/**
 * Parsed footers kept between a part's schema read and its column reads (a query reads every
 * part's schema first, and releases its parts when done). One is a few KB for parts as storage
 * writes them; past the bound the oldest goes and is read again if needed.
 */
const footersMax = 1024;

export class PartReader {
  /** Parsed footers by path; null for a part read through parquet-wasm. */
  private readonly footers = new Map<string, Footer | null>();
  private readonly wasm = new ParquetParts();

  /** Column names and types of a part. */
  async schema(path: string): Promise<Map<string, ColumnType>> {
    const footer = this.footer(path);
    if (footer === null) return this.wasm.schema(path);
    return new Map(footer.columns.map((column) => [column.name, column.type] as const));
  }

  /** The named columns of a part (every name is in `schema`, the part's schema). */
  async read(path: string, names: string[], schema: Map<string, ColumnType>): Promise<Map<string, Decoded>> {
    const footer = this.footer(path);
    if (footer !== null) {
      try {
        return readPartColumns(path, footer, names);
      } catch (error) {
        if (!(error instanceof ParquetUnsupportedError)) throw error;
      }
    }
    return this.wasm.read(path, names, (name, arrays) => decodeArrow(arrays, schema.get(name)!));
  }

  /** Queues a read of the named columns in a decode worker; null for a part only parquet-wasm reads. */
  readInWorker(path: string, names: string[], schema: Map<string, ColumnType>, pool: DecodePool): DecodeTask | null {
    const footer = this.footer(path);
    return footer === null ? null : pool.submit(path, footer, names, (task) => this.runHere(task, schema));
  }

  /** Runs a queued worker read on this thread instead (taken back from the pool). */
  private async runHere(task: DecodeTask, schema: Map<string, ColumnType>): Promise<void> {
    try {
      task.resolve(await this.read(task.request.path, task.request.names, schema));
    } catch (error) {
      task.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** A worker read's columns; what the worker's reader refused is read through parquet-wasm here. */
  async workerResult(task: DecodeTask, schema: Map<string, ColumnType>): Promise<Map<string, Decoded>> {
    try {
      return await task.result;
    } catch (error) {
      if (!(error instanceof ParquetUnsupportedError)) throw error;
      return this.wasm.read(task.request.path, task.request.names, (name, arrays) => decodeArrow(arrays, schema.get(name)!));
    }
  }

  /** The value of every row of a number column of a part, when its footer and dictionaries show it has one (else null). */
  constantNumber(path: string, name: string): number | null {
    const footer = this.footer(path);
    if (footer === null) return null;
    try {
      return constantNumber(path, footer, name);
    } catch (error) {
      if (!(error instanceof ParquetUnsupportedError)) throw error;
      return null;
    }
  }

  /** Forgets what was kept for a column read that is not coming (or has been done). */
  close(path: string): void {
    this.footers.delete(path);
    this.wasm.close(path);
  }

  private footer(path: string): Footer | null {
    if (this.footers.has(path)) return this.footers.get(path)!;
    let footer: Footer | null = null;
    try {
      footer = readFooter(path);
    } catch (error) {
      if (!(error instanceof ParquetUnsupportedError)) throw error;
    }
    this.footers.set(path, footer);
    if (this.footers.size > footersMax) this.footers.delete(this.footers.keys().next().value!);
    return footer;
  }
}
