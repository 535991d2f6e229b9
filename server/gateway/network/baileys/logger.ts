// The logger Baileys is given. Baileys expects pino's shape (its ILogger); ours writes one bounded
// JSON line per record to stderr at or above the chosen level, and nothing at "silent" (the
// default: Baileys is chatty, and its records carry protocol nodes, keys and message content).
import type { SocketConfig } from "baileys";

/** Baileys' ILogger; the package does not export the name, only the config field that takes it. */
export type BaileysLogger = SocketConfig["logger"];

export type BaileysLogLevel = "silent" | "error" | "warn" | "info" | "debug" | "trace";

const severity: Record<BaileysLogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, silent: Number.POSITIVE_INFINITY };

/** One record is cut to this many characters: a stray protocol dump must not flood the log. */
export const logRecordCharsMax = 2_000;

export type LogSink = (line: string) => void;

const stderrSink: LogSink = (line) => process.stderr.write(`${line}\n`);

export function makeBaileysLogger(level: BaileysLogLevel, bindings: Record<string, unknown> = {}, sink: LogSink = stderrSink): BaileysLogger {
  const write = (recordLevel: Exclude<BaileysLogLevel, "silent">) => (record: unknown, message?: string) => {
    if (severity[recordLevel] < severity[level]) return;
    const line = safeStringify({ level: recordLevel, ...bindings, ...fields(record), ...(message === undefined ? {} : { msg: message }) });
    sink(line.length > logRecordCharsMax ? `${line.slice(0, logRecordCharsMax)}…` : line);
  };
  return {
    level,
    child: (more: Record<string, unknown>) => makeBaileysLogger(level, { ...bindings, ...more }, sink),
    trace: write("trace"),
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
  };
}

/** Baileys passes a fields object, an Error, or a bare value as the record. */
function fields(record: unknown): object {
  if (record instanceof Error) return { error: record };
  return record && typeof record === "object" ? record : { value: record };
}

function safeStringify(value: unknown): string {
  try {
    // `holder[key]` is the value before its toJSON ran: a Buffer's toJSON would list every byte.
    return JSON.stringify(value, function (this: Record<string, unknown>, key: string, field: unknown) {
      const raw = this[key];
      if (raw instanceof Uint8Array) return `<${raw.byteLength} bytes>`;
      if (field instanceof Error) return { name: field.name, message: field.message };
      if (typeof field === "bigint") return field.toString();
      return field;
    });
  } catch {
    return JSON.stringify({ level: "error", msg: "unserialisable log record" });
  }
}
