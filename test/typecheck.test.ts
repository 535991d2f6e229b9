// CI runs `npm test` and nothing else, so the type checks `npm run typecheck` runs are here too:
// the server, engine, storage and tests (tsconfig.json), and the browser console and SDK, which
// have their own configurations (DOM types would change the server's Worker and fetch types).
import { expect, test } from "bun:test";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const tsc = join(root, "node_modules", ".bin", "tsc");

async function typecheck(...args: string[]): Promise<{ exitCode: number; output: string }> {
  const child = Bun.spawn([tsc, "--noEmit", ...args], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { exitCode, output: stdout + stderr };
}

// The three checks start together (each is one process, mostly one thread): on two cores
// they take about half as long as one after another.
const server = typecheck();
const webConsole = typecheck("-p", "web/console");
const sdk = typecheck("-p", "web/sdk");

test("the server, engine, storage and tests type-check", async () => {
  expect(await server).toEqual({ exitCode: 0, output: "" });
}, 180_000);

test("the web console type-checks", async () => {
  expect(await webConsole).toEqual({ exitCode: 0, output: "" });
}, 180_000);

test("the browser SDK type-checks", async () => {
  expect(await sdk).toEqual({ exitCode: 0, output: "" });
}, 180_000);
