// Runs a client's statement in a process of its own (sandbox-process.ts), one per statement.
// Why not in this process: DuckDB's memory_limit bounds only the memory it manages, not the
// strings a query builds (SELECT repeat('x', 100000000) FROM range(100) grew this process to
// 20 GB here), and a crash would take every tenant's requests down with it. The child runs
// under an OS data-size limit (ulimit -d, RLIMIT_DATA), where DuckDB fails with "Out of Memory
// Error" instead; it gets an empty environment, and it is killed if it outlives its deadline.
import { fileURLToPath } from "node:url";
import type { ColumnType } from "../chunk-store.ts";
import type { ValueKind } from "../query-data.ts";
import type { RefusalKind, SelectAnswer, SelectLimits, SqlParam } from "./select-statement.ts";
import type { ViewFile } from "./view.ts";

/** The OS limit on a sandbox process's data (heap and private mappings): DuckDB's own limit plus room for strings and the runtime. */
export const sandboxProcessDataBytesMax = 2 * 1024 * 1024 * 1024;
/** How long past its deadline a sandbox process may take to notice its interrupt before it is killed. */
export const sandboxKillGraceMs = 2_000;

export interface SandboxRequest {
  files: { path: string; schema: [string, ColumnType][] }[];
  properties: [string, ValueKind][];
  /** Size of the person index; `overrides` lists each merged-away index with its survivor. */
  persons: number;
  overrides: [number, number][];
  sql: string;
  params: SqlParam[];
  limits: SelectLimits;
}

export type SandboxReply = { answer: SelectAnswer } | { refusal: { kind: RefusalKind; message: string } } | { failure: string };

const childScript = fileURLToPath(new URL("./sandbox-process.ts", import.meta.url));

export interface SandboxInput {
  files: ViewFile[];
  properties: Map<string, ValueKind>;
  canonical: Int32Array;
  sql: string;
  params: SqlParam[];
  limits: SelectLimits;
  /** Working directory of the process (a scratch directory of the request). */
  cwd: string;
}

function request(input: SandboxInput): SandboxRequest {
  const overrides: [number, number][] = [];
  input.canonical.forEach((survivor, index) => {
    if (survivor !== index) overrides.push([index, survivor]);
  });
  return {
    files: input.files.map((file) => ({ path: file.path, schema: [...file.schema] })),
    properties: [...input.properties],
    persons: input.canonical.length,
    overrides,
    sql: input.sql,
    params: input.params,
    limits: input.limits,
  };
}

/** The child's reply; a child killed at its deadline counts as a timeout refusal. The caller holds a slot (sandbox-slots.ts). */
export async function runInSandbox(input: SandboxInput): Promise<SandboxReply> {
  const child = Bun.spawn({
    cmd: ["/bin/sh", "-c", 'ulimit -d "$1" && shift && exec "$@"', "sh", String(sandboxProcessDataBytesMax / 1024), process.execPath, childScript],
    cwd: input.cwd,
    env: {},
    stdin: new Blob([JSON.stringify(request(input))]),
    stdout: "pipe",
    stderr: "pipe",
  });
  let killed = false;
  const killer = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, Math.max(0, input.limits.deadline - Date.now()) + sandboxKillGraceMs);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (killed) return { refusal: { kind: "timeout", message: "the statement ran past its time limit" } };
    try {
      return JSON.parse(stdout) as SandboxReply;
    } catch {
      return { failure: `sandbox process ended without an answer (exit ${code}): ${stderr.slice(-2000)}` };
    }
  } finally {
    clearTimeout(killer);
  }
}
