// The DuckDB session a client's SQL runs in (/sql): a fresh in-memory database whose `events`
// view covers exactly the given files. Before the view exists, the session may read those
// files and nothing else (no other path, no URL, no extension), cannot spill to disk, and its
// configuration is locked, so no statement can lift these rules again. Verified on DuckDB 1.5:
// read_csv, read_text, glob, read_parquet of any other path, COPY TO, ATTACH of a file,
// INSTALL and LOAD all fail with "Permission Error"; SET, RESET and PRAGMA fail as locked.
import { DuckDbSession } from "./duckdb.ts";
import { literal } from "./params.ts";
import type { ViewFile } from "./view.ts";
import type { ValueKind } from "../query-data.ts";

export const sandboxThreads = 2;
/** DuckDB's own bound on memory it manages (hash tables, sorts); the process limit covers the rest. */
export const sandboxMemoryLimitBytes = 1024 * 1024 * 1024;

export async function openSandbox(files: ViewFile[], properties: Map<string, ValueKind>, canonical: Int32Array): Promise<DuckDbSession> {
  const session = await DuckDbSession.open(sandboxThreads, {
    memory_limit: `${sandboxMemoryLimitBytes}B`,
    // An in-memory database with no temporary directory fails past its memory limit instead of writing to disk.
    temp_directory: "",
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
  });
  try {
    const run = (sql: string) => session.connection.run(sql);
    await run(`SET allowed_paths = [${files.map((file) => literal(file.path)).join(", ")}]`);
    // Timestamps print and truncate the same on every host; clients convert with timezone().
    await run("SET TimeZone = 'UTC'");
    await run("SET enable_external_access = false");
    await run("SET lock_configuration = true");
    await session.defineEvents(files, properties, canonical);
    return session;
  } catch (error) {
    session.close();
    throw error;
  }
}
