// Entry point of one sandbox process (see sandbox-runner.ts): reads a SandboxRequest as JSON
// on stdin, runs the statement in a locked DuckDB session, writes a SandboxReply as JSON on
// stdout and exits. Nothing else is written to stdout.
import { openSandbox } from "./sandbox.ts";
import { SqlRefusal, runSelect } from "./select-statement.ts";
import type { SandboxReply, SandboxRequest } from "./sandbox-runner.ts";

function canonicalOf(request: SandboxRequest): Int32Array {
  const canonical = new Int32Array(request.persons);
  for (let index = 0; index < canonical.length; index++) canonical[index] = index;
  for (const [index, survivor] of request.overrides) canonical[index] = survivor;
  return canonical;
}

async function reply(request: SandboxRequest): Promise<SandboxReply> {
  const files = request.files.map((file) => ({ path: file.path, schema: new Map(file.schema) }));
  const session = await openSandbox(files, new Map(request.properties), canonicalOf(request));
  try {
    return { answer: await runSelect(session, request.sql, request.params, request.limits) };
  } catch (error) {
    if (error instanceof SqlRefusal) return { refusal: { kind: error.kind, message: error.message } };
    return { failure: error instanceof Error ? error.message : String(error) };
  } finally {
    session.close();
  }
}

const request = JSON.parse(await Bun.stdin.text()) as SandboxRequest;
const answer = await reply(request).catch((error: unknown): SandboxReply => ({ failure: error instanceof Error ? error.message : String(error) }));
await Bun.write(Bun.stdout, JSON.stringify(answer));
process.exit(0);
