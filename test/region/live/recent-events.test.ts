// The ring of a project environment's last events: numbering, and both bounds at their edges.
import { expect, test } from "bun:test";
import { RecentEvents } from "../../../server/region/live/recent-events.ts";
import { nowhere, storedAs, validEvent } from "./fixtures.ts";

const kept = (recent: RecentEvents) => {
  const seqs: number[] = [];
  for (let seq = recent.firstSeq; seq <= recent.lastSeq; seq++) seqs.push(recent.at(seq)!.seq);
  return { first: recent.firstSeq, last: recent.lastSeq, seqs };
};

test("numbers events from 1 and keeps the last `capacity` of them", () => {
  const recent = new RecentEvents(3, 1_000_000);
  expect(kept(recent)).toEqual({ first: 1, last: 0, seqs: [] });
  const events = [validEvent(), validEvent(), validEvent(), validEvent()];
  for (const event of events.slice(0, 3)) recent.push(event, storedAs(0), nowhere, 5, 10);
  expect(kept(recent)).toEqual({ first: 1, last: 3, seqs: [1, 2, 3] });
  expect(recent.push(events[3]!, storedAs(0), nowhere, 6, 10)).toBe(4);
  expect(kept(recent)).toEqual({ first: 2, last: 4, seqs: [2, 3, 4] });
  expect([recent.at(1), recent.at(5)]).toEqual([null, null]);
  expect(recent.at(4)).toEqual({ seq: 4, event: events[3]!, stored: storedAs(0), location: nowhere, receivedAt: 6 });
});

test("keeps events standing for at most `bytesMax` bytes, and always the newest", () => {
  const recent = new RecentEvents(100, 1000);
  for (let i = 0; i < 4; i++) recent.push(validEvent(), storedAs(0), nowhere, 0, 250);
  expect(kept(recent).seqs).toEqual([1, 2, 3, 4]);
  recent.push(validEvent(), storedAs(0), nowhere, 0, 1);
  expect(kept(recent).seqs).toEqual([2, 3, 4, 5]);
  recent.push(validEvent(), storedAs(0), nowhere, 0, 5000);
  expect(kept(recent)).toEqual({ first: 6, last: 6, seqs: [6] });
  recent.push(validEvent(), storedAs(0), nowhere, 0, 1000);
  expect(kept(recent).seqs).toEqual([7]);
});

test("forgets the events an erasure picks: their numbers stay used, their bytes free", () => {
  const recent = new RecentEvents(10, 1000);
  const mine = validEvent({ distinctId: "erased-1" });
  for (const [index, event] of [validEvent(), mine, validEvent(), mine].entries()) recent.push(event, storedAs(index, index === 1 ? 7 : 0), nowhere, 0, 400);
  expect(kept(recent).seqs).toEqual([3, 4]);
  expect(recent.forget((event, stored) => event.distinctId === "erased-1" || stored.personIndex === 7)).toBe(1);
  expect([recent.firstSeq, recent.lastSeq, recent.at(4), recent.at(3)!.seq]).toEqual([3, 4, null, 3]);
  // Its bytes are free: two more events fit beside the one left.
  recent.push(validEvent(), storedAs(0), nowhere, 0, 300);
  recent.push(validEvent(), storedAs(0), nowhere, 0, 300);
  expect([recent.firstSeq, recent.lastSeq, [3, 5, 6].map((seq) => recent.at(seq)?.seq)]).toEqual([3, 6, [3, 5, 6]]);
});
