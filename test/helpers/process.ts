// The service as a separate process, the way `npm start` runs it.
import type { Subprocess } from "bun";

/** Reads until `pattern` matches; returns the match and the reader (still locked, for draining). */
async function readMatch(stream: ReadableStream<Uint8Array>, pattern: RegExp) {
  const reader = stream.getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
    text += new TextDecoder().decode(value);
    const match = text.match(pattern);
    if (match) return { match, reader };
  }
}

export interface OutputWatch {
  /** Everything the stream has given so far. */
  text(): string;
  /** Resolves once the text so far matches `pattern` (rejects if the stream ends first). */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves with the whole text once the stream ends. */
  ended: Promise<string>;
}

/** Reads `stream` to its end in the background, so lines can be waited for one after another without losing any. */
export function watchOutput(stream: ReadableStream<Uint8Array>): OutputWatch {
  let text = "";
  let done = false;
  const waiters: (() => void)[] = [];
  const changed = () => {
    for (const wake of waiters.splice(0)) wake();
  };
  const ended = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      changed();
    }
    done = true;
    changed();
    return text;
  })();
  return {
    text: () => text,
    ended,
    async waitFor(pattern) {
      for (;;) {
        const match = text.match(pattern);
        if (match) return match;
        if (done) throw new Error(`output ended before ${pattern}: ${text}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

/**
 * What `npm start` tells JavaScriptCore the machine's memory is (BUN_JSC_forceRAMSize, unless
 * set): JSC sizes its heap growth from it, and with the real 24 GiB the heap let garbage pile up
 * past 1 GiB under full ingest (README, Configuration). Benchmarks spawn the service the same way.
 */
export const serviceJscRamBytes = 512 * 1024 * 1024;

export interface ServiceProcess {
  url: string;
  child: Subprocess<"ignore", "pipe", "inherit">;
}

/**
 * Starts `entry` (the service by default) and waits for its "listening on" line.
 * `runtime: "npm start"` (the default) runs `entry` under npm start's JavaScriptCore setting;
 * "plain" leaves Bun's defaults, for a benchmark's bare baseline server.
 */
export async function spawnService(env: Record<string, string>, entry = ["server/main.ts"], runtime: "npm start" | "plain" = "npm start"): Promise<ServiceProcess> {
  const child = Bun.spawn([process.execPath, ...entry], {
    env: { ...(runtime === "npm start" ? { BUN_JSC_forceRAMSize: String(serviceJscRamBytes) } : {}), ...process.env, PORT: "0", HOST: "127.0.0.1", MAIL_SMTP_PORT: "0", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const { match, reader } = await readMatch(child.stdout, /listening on (http:\/\/\S+) /);
    // Keep draining stdout so the child never blocks on a full pipe.
    void (async () => {
      while (!(await reader.read().catch(() => ({ done: true }))).done);
    })();
    return { url: match[1]!, child };
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
}
