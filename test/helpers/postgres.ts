// A real PostgreSQL server for tests whose stores are shared by replicas: Debian's
// `postgresql` package (installed when missing, as Chromium is), a fresh cluster in a
// temporary directory on a free loopback port, run as the `postgres` user (the server refuses
// root), stopped and removed after.
import type { Subprocess } from "bun";
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDebianPackage } from "./debian-package.ts";
import { watchOutput } from "./process.ts";

export interface TestPostgres {
  url: string;
  /** Stops the server at once (as a crash or a pulled cable would), keeping its files. */
  kill(): Promise<void>;
  /** Starts it again on the same files and port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

function binDir(): string {
  ensureDebianPackage("postgresql", "/usr/bin/pg_lsclusters", "The tests of stores shared by replicas");
  const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error("Debian's postgresql is installed but /usr/lib/postgresql holds no server");
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

const asPostgres = (command: string[]) => (process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--", ...command] : command);

/** A loopback port free now (for a server that must know its own port before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), "pg-test-"));
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  const init = Bun.spawnSync(asPostgres([`${bin}/initdb`, "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]), { stdout: "pipe", stderr: "pipe" });
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString()}`);
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let server: Subprocess | null = null;
  const start = async () => {
    const spawned = Bun.spawn(asPostgres([`${bin}/postgres`, "-D", data, "-p", String(port), "-h", "127.0.0.1", "-k", dir, "-c", "fsync=off"]), { stdout: "ignore", stderr: "pipe" });
    server = spawned;
    await watchOutput(spawned.stderr).waitFor(/database system is ready to accept connections/);
  };
  const kill = async () => {
    if (!server) return;
    // The postmaster itself (runuser, its parent, does not pass SIGKILL on), as a crash would stop it.
    process.kill(Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n", 1)[0]), "SIGKILL");
    await server.exited;
    server = null;
  };
  await start();
  return {
    url,
    kill,
    start,
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
