// bench/replay in its short form: the seeded recordings are the same for the same seed, each chunk
// is one ingest accepts, the counts the index will derive are the generator's own; the traffic
// sends each session's chunks in order; one tiny run stores every acknowledged chunk once and
// gives figures that are counts of what happened.
import { expect, test } from "bun:test";
import { validateChunk } from "../../server/ingest/replay/validate-chunk.ts";
import { summarise } from "../../storage/replay/replay-summary.ts";
import { chunkIntervalMs, recordVisits } from "../../bench/replay/recording.ts";
import { typicalPage } from "../../bench/replay/page.ts";
import { mulberry32 } from "../../bench/ingest/generator.ts";
import { replaySection } from "../../bench/replay/report.ts";
import { runOnce, type BenchSize } from "../../bench/replay/run-once.ts";
import { measureStorage } from "../../bench/replay/storage.ts";
import { recordingTotals, ReplayTraffic } from "../../bench/replay/traffic.ts";

const startMs = Date.parse("2026-11-27T10:00:00Z");

test("the same seed gives the same visits; each a realistic recording of the typical page", () => {
  const visits = recordVisits(7, 3, startMs);
  expect(recordVisits(7, 3, startMs)).toEqual(visits);
  expect(recordVisits(8, 3, startMs)).not.toEqual(visits);
  const page = typicalPage(mulberry32(1));
  expect(page.nodeCount).toBe(674);
  for (const visit of visits) {
    expect(visit.events.slice(0, 2).map((event) => event.type)).toEqual([4, 2]);
    expect(visit.durationMs).toBeGreaterThan(60_000);
    expect(visit.durationMs).toBeLessThanOrEqual(8 * 60_000);
    expect(visit.events.every((event, at) => at === 0 || event.timestamp >= visit.events[at - 1]!.timestamp)).toBe(true);
    expect(visit.chunks.map((chunk) => chunk.seq)).toEqual(visit.chunks.map((_, at) => at));
    expect(visit.chunks.flatMap((chunk) => chunk.events)).toEqual(visit.events);
    for (const chunk of visit.chunks) {
      expect(chunk.events.at(-1)!.timestamp - chunk.events[0]!.timestamp).toBeLessThan(chunkIntervalMs);
      const verdict = validateChunk({ session_id: Bun.randomUUIDv7(), seq: chunk.seq, distinct_id: "visitor", platform: "web", mode: "dom", events: chunk.events }, { receivedAt: Date.now(), oldestAllowedMs: 0, retentionDays: 365 });
      expect(verdict.ok).toBe(true);
    }
    // Inputs are masked: no typed text but asterisks.
    const typed = visit.events.filter((event) => event.type === 3 && event.data.source === 5).map((event) => event.data.text as string);
    expect(typed.every((text) => /^\*+$/.test(text))).toBe(true);
    const summary = summarise(visit.events);
    expect({ clicks: summary.clickCount, keypresses: summary.keypressCount, consoleErrors: summary.consoleErrorCount, pages: summary.pageCount }).toEqual({
      clicks: visit.clicks,
      keypresses: visit.keypresses,
      consoleErrors: visit.consoleErrors,
      pages: 1,
    });
  }
  const totals = recordingTotals(visits);
  expect(totals.chunks).toBe(visits.reduce((sum, visit) => sum + visit.chunks.length, 0));
  expect(totals.snapshotBytes).toBeGreaterThan(20_000);
  expect({ nodes: totals.snapshotNodes, elements: totals.snapshotElements }).toEqual({ nodes: 674, elements: 167 });
});

test("each sender posts its session's chunks in order, then the next visit under a new session id", () => {
  const visits = recordVisits(3, 2, startMs);
  const traffic = new ReplayTraffic(visits);
  const sent: { session_id: string; seq: number }[][] = [];
  const requests = Math.ceil(visits[0]!.chunks.length / 5) + 1;
  for (let request = 0; request < requests; request++) {
    const { body, chunks } = traffic.request(0, "key", 5);
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { api_key: string; chunks: { session_id: string; seq: number; events: unknown[] }[] };
    expect(parsed.api_key).toBe("key");
    expect(parsed.chunks.length).toBe(chunks);
    sent.push(parsed.chunks.map(({ session_id, seq }) => ({ session_id, seq })));
  }
  const first = sent.slice(0, -1).flat();
  expect(first.map((chunk) => chunk.seq)).toEqual(visits[0]!.chunks.map((chunk) => chunk.seq));
  expect(new Set(first.map((chunk) => chunk.session_id)).size).toBe(1);
  const next = sent.at(-1)!;
  expect(next.map((chunk) => chunk.seq)).toEqual([0, 1, 2, 3, 4]);
  expect(next[0]!.session_id).not.toBe(first[0]!.session_id);
  expect(traffic.sessions).toBe(2);
});

test("one tiny run stores every acknowledged chunk once and reports sane figures", async () => {
  const size: BenchSize = { seed: 42, seconds: 1, senders: 4, chunksPerRequest: 5, projects: 2, visits: 4 };
  const visits = recordVisits(size.seed, size.visits, Date.now());
  const totals = recordingTotals(visits);
  const progress: string[] = [];
  const figures = await runOnce(visits, size, (line) => progress.push(line));
  expect(progress.map((line) => line.split(" ")[0])).toEqual(["floor", "service"]);
  for (const load of [figures.floor.load, figures.service.load]) {
    expect(load.failures).toEqual({});
    expect(load.chunks).toBeGreaterThan(0);
    expect(load.megabytesPerSecond).toBeGreaterThan(0);
    expect(load.p99Ms).toBeGreaterThanOrEqual(load.p50Ms);
  }
  expect(figures.service.stored.chunks).toBe(figures.service.load.chunks);
  expect(figures.service.sustainedChunksPerSecond).toBeLessThanOrEqual(figures.service.load.chunksPerSecond);

  const defaultInterval = await measureStorage(visits, 30_000);
  const wholeVisit = await measureStorage(visits, Number.POSITIVE_INFINITY);
  expect({ sessions: wholeVisit.sessions, chunks: wholeVisit.chunks, blocks: wholeVisit.blocks, logBytes: wholeVisit.logBytes }).toEqual({ sessions: 4, chunks: totals.chunks, blocks: 4, logBytes: 0 });
  expect(defaultInterval.blocks).toBeGreaterThan(wholeVisit.blocks);
  for (const stored of [defaultInterval, wholeVisit]) {
    expect(stored.blockBytes).toBeGreaterThan(0);
    expect(stored.blockBytes).toBeLessThan(totals.eventBytes / 2);
    expect(stored.indexBytes).toBeGreaterThan(0);
  }
  const section = replaySection({ figures: [figures], size, totals, storage: { defaultInterval, wholeVisit }, command: "bun test", machine: "Machine: test", seconds: 1 });
  expect(section.startsWith("## Replay (bench/replay) — ")).toBe(true);
  expect(section).toContain("| chunks acknowledged per second |");
  expect(section).toContain("- run 1: floor ");
  expect(section).not.toContain("NaN");
}, 120_000);
