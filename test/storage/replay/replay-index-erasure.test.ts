// ReplayIndex.sessionsOf, which an erasure uses to find a person's recordings: the project's
// sessions of the ids named, however many ids (more than SQLite's variable limit too).
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { ReplayIndex, type ReplaySessionRow } from "../../../storage/replay/replay-index.ts";

const project = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e03";
/** Past the variable limit of the SQLite Bun ships (250,000; SQLite's own default is 32,766). */
const manyIds = 250_001;

const session = (sessionId: string, distinctId: string, projectId = project): ReplaySessionRow => ({
  projectId, environment: "production", sessionId, dataId: 7, distinctId, platform: "web", mode: "full", startMs: 1000, endMs: 2000,
  activeSeconds: 1, activeRanges: [], firstUrl: null, visits: [], pageCount: 1, clickCount: 0, keypressCount: 0, consoleErrorCount: 0,
  chunkCount: 2, eventCount: 5, sizeBytes: 100, receivedMs: 2000,
});

test("sessionsOf finds the project's sessions of more ids than SQLite takes variables", () => {
  const db = new Database(":memory:");
  const index = new ReplayIndex(db);
  index.putSession(session("s-1", "user-1"));
  index.putSession(session("s-2", `user-${manyIds - 1}`));
  index.putSession(session("s-3", "someone-else"));
  index.putSession(session("s-4", "user-1", "7a2d2b63-2e7c-4d66-8b8d-1e4d2a3c0f02"));
  const ids = Array.from({ length: manyIds }, (_, i) => `user-${i}`);
  expect(index.sessionsOf(project, ids).map((row) => row.sessionId).sort()).toEqual(["s-1", "s-2"]);
  expect(index.sessionsOf(project, [])).toEqual([]);
  db.close();
});
