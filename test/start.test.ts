// `bun server/main.ts` as `npm start` runs it: serves /health, shuts down cleanly on SIGTERM,
// also when the signal goes to the `npm start` process.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serviceJscRamBytes, watchOutput } from "./helpers/process.ts";
import { ManifestLog, manifestLogFileName } from "../storage/manifest.ts";
import packageJson from "../package.json";

/**
 * What the service prints after its "listening on" line, for clients reaching it at `baseUrl`,
 * on a first start in `dataDir`: the gateway's and the mail API's root keys are made then, printed that once.
 */
const startupGuideText = (baseUrl: string, dataDir: string) => {
  const keyFile = join(dataDir, "gateway-root-key");
  const mailKeyFile = join(dataDir, "mail-root-key");
  return (
    `  web console: ${baseUrl}/ (open it in a browser to sign up and create a first project)\n` +
    `  health:      ${baseUrl}/health\n` +
    `  API schema:  ${baseUrl}/openapi.json\n` +
    `  with curl:   README.md, "From sign-up to a first region token"\n` +
    `  gateway:     ${baseUrl}/gateway (messaging gateway: docs/gateway.md)\n` +
    `  gateway key: ${readFileSync(keyFile, "utf8").trim()} (the operator's root key, shown once; kept in ${keyFile}, mode 0600)\n` +
    `  mail API:    ${baseUrl}/mail (transactional mail: docs/mail.md)\n` +
    `  mail key:    ${readFileSync(mailKeyFile, "utf8").trim()} (the operator's root key, shown once; kept in ${mailKeyFile}, mode 0600)\n`
  );
};

test("main starts, prints where it is and what to do first, serves /health on PORT, stops on SIGTERM with exit code 0", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-start-"));
  const child = Bun.spawn([process.execPath, "server/main.ts"], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, MAIL_SMTP_PORT: "0" },
    stdout: "pipe",
    stderr: "inherit",
  });
  const output = watchOutput(child.stdout);
  try {
    const [, url] = await output.waitFor(/listening on (http:\/\/\S+) /);
    const [guide] = await output.waitFor(/(?<=listening on .*\n)(.*\n){8}/);
    expect(guide).toBe(startupGuideText(url!, dataDir));
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe("ok");
    expect(existsSync(join(dataDir, "control.sqlite"))).toBe(true);
    expect(existsSync(join(dataDir, "eu", "region.sqlite"))).toBe(true);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
  } finally {
    child.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a bad configuration value stops start-up with a clear message and exit code 2", async () => {
  const child = Bun.spawn([process.execPath, "server/main.ts"], { env: { ...process.env, REGIONS: "eu,mars" }, stdout: "pipe", stderr: "pipe" });
  expect(await child.exited).toBe(2);
  expect(await new Response(child.stderr).text()).toBe('configuration error: REGIONS lists unknown region "mars"; known: eu, us, me, pk\n');
});

test("a damaged manifest log stops start-up with a message naming the file, exit code 2, and no file removed", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-damaged-"));
  try {
    const regionDir = join(dataDir, "eu");
    mkdirSync(regionDir);
    const log = ManifestLog.open(regionDir);
    log.commit({ walSealedThrough: { file: 1, offset: 0 } });
    log.commit({ walSealedThrough: { file: 1, offset: 0 } });
    log.close();
    const logPath = join(regionDir, manifestLogFileName);
    const bytes = readFileSync(logPath);
    bytes[10]! ^= 0xff;
    writeFileSync(logPath, bytes);
    const child = Bun.spawn([process.execPath, "server/main.ts"], { env: { ...process.env, PORT: "0", DATA_DIR: dataDir, REGIONS: "eu", MAIL_SMTP_PORT: "0" }, stdout: "pipe", stderr: "pipe" });
    expect(await child.exited).toBe(2);
    expect(await new Response(child.stderr).text()).toBe(
      `storage error: ${logPath} is damaged at byte 0 of ${bytes.length}, before intact changes (up to change 2). ` +
        "The store does not open on it: the files those changes name would be deleted. Restore the file from a backup, " +
        "or move it away to start from the last checkpoint (files named only since then are then removed)\n",
    );
    expect(new Uint8Array(readFileSync(logPath))).toEqual(new Uint8Array(bytes));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("npm start sizes JavaScriptCore's heap for 512 MiB unless BUN_JSC_forceRAMSize is set, as the benchmarks' service does", () => {
  expect(packageJson.scripts.start).toBe(`node scripts/ensure-deps.mjs && BUN_JSC_forceRAMSize=\${BUN_JSC_forceRAMSize:-${serviceJscRamBytes}} exec bun server/main.ts`);
});

/** The processes `pid` started (every thread's), and theirs, from /proc. */
function descendantsOf(pid: number): number[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number));
  return children.flatMap((child) => [child, ...descendantsOf(child)]);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * POSTs `body` as JSON asking for `100 Continue` first: `continued` resolves once the service
 * is handling the request (it has begun reading the body), and `send()` sends the body and
 * resolves with the raw answer once the service has closed the connection.
 */
async function postExpectingContinue(url: string, path: string, body: string) {
  const { hostname, port } = new URL(url);
  let received = "";
  const continued = Promise.withResolvers<void>();
  const closed = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(_socket, bytes) {
        received += new TextDecoder().decode(bytes);
        if (received.startsWith("HTTP/1.1 100 Continue\r\n\r\n")) continued.resolve();
      },
      close: () => closed.resolve(),
      error: (_socket, error) => closed.reject(error),
    },
  });
  socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
  return {
    continued: continued.promise,
    async send() {
      socket.write(body);
      await closed.promise;
      return received;
    },
  };
}

test("SIGTERM to the `npm start` process reaches the service: it finishes an in-flight request, stops gracefully and leaves no process behind", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-npm-start-"));
  // npm runs the script through a shell; what Docker and systemd signal is npm.
  const npm = Bun.spawn(["npm", "start"], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, REGIONS: "eu", PUBLIC_URL: "https://analytics.example.com" },
    stdout: "pipe",
    stderr: "inherit",
  });
  const output = watchOutput(npm.stdout);
  let started: number[] = [];
  try {
    const [, url] = await output.waitFor(/listening on (http:\/\/\S+) /);
    started = descendantsOf(npm.pid);
    const service = started.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8") === "bun\0server/main.ts\0");
    expect(service).toHaveLength(1);

    const body = JSON.stringify({ email: "in-flight@example.com", name: "In Flight", password: "violet-harbour-71-quietly" });
    const request = await postExpectingContinue(url!, "/app/auth/signup", body);
    await request.continued;
    npm.kill("SIGTERM");
    // Fails at once, rather than at the time-out, when npm exits leaving the service unsignalled.
    const npmGone = npm.exited.then((code) => Promise.reject(new Error(`npm exited (${code}) before the service received SIGTERM: ${output.text()}`)));
    await Promise.race([output.waitFor(/SIGTERM received: finishing in-flight requests and closing databases\n/), npmGone]);
    const answer = await request.send();
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 Created\r\n/);
    expect(JSON.parse(answer.slice(answer.lastIndexOf("\r\n\r\n") + 4)).user.email).toBe("in-flight@example.com");

    expect(await npm.exited).toBe(0);
    // In order: the guide (at PUBLIC_URL), the signal, the in-flight sign-up's work (its mail), then the end of the shutdown.
    const afterStart = (await output.ended).split(/listening on .*\n/)[1];
    expect(afterStart).toBe(
      startupGuideText("https://analytics.example.com", dataDir) +
        "SIGTERM received: finishing in-flight requests and closing databases\n" +
        `mail outbox: verify_email for in-flight@example.com written to ${join(dataDir, "mail-outbox.jsonl")}\n` +
        "stopped\n",
    );
    // Nothing npm started is left, the service least of all.
    expect(started.filter(isRunning)).toEqual([]);
  } finally {
    npm.kill("SIGKILL");
    for (const pid of started.filter(isRunning)) process.kill(pid, "SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
});
