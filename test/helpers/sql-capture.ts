// Records the SQL the service runs on one SQLite file, to check each statement's query plan:
// while recording, statements made through Database#query or #prepare (on any connection,
// the service's included) note their text each time they run.
import { Database, type Statement } from "bun:sqlite";

const runMethods = ["get", "all", "run", "values", "iterate"] as const;

export interface StatementRecorder {
  /** The distinct SQL texts run on the file since the start or the last clear(), in the order first run. */
  statements(): string[];
  /** Forgets what ran so far (what opening the file ran, say); statements go on being recorded. */
  clear(): void;
  /** Stops recording and gives Database back its own methods. */
  stop(): void;
}

/** Starts recording statements run on the SQLite file whose path ends with `fileSuffix`; start it before the connection opens. */
export function recordStatements(fileSuffix: string): StatementRecorder {
  const ran = new Set<string>();
  let recording = true;
  // Database#query hands out the same statement for the same text: wrap it once.
  const wrapped = new WeakSet<Statement>();
  const originals = { query: Database.prototype.query, prepare: Database.prototype.prepare };
  const wrap = (make: (this: Database, sql: string) => Statement) =>
    function (this: Database, sql: string) {
      const statement = make.call(this, sql);
      if (!this.filename.endsWith(fileSuffix) || wrapped.has(statement)) return statement;
      wrapped.add(statement);
      const methods = statement as unknown as Record<string, (...args: unknown[]) => unknown>;
      for (const name of runMethods) {
        const run = methods[name]!;
        methods[name] = (...args: unknown[]) => {
          if (recording) ran.add(sql);
          return run.apply(statement, args);
        };
      }
      return statement;
    };
  Database.prototype.query = wrap(originals.query as (sql: string) => Statement) as typeof originals.query;
  Database.prototype.prepare = wrap(originals.prepare as (sql: string) => Statement) as typeof originals.prepare;
  return {
    statements: () => [...ran],
    clear: () => ran.clear(),
    stop() {
      recording = false;
      Database.prototype.query = originals.query;
      Database.prototype.prepare = originals.prepare;
    },
  };
}
